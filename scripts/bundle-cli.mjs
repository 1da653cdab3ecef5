/**
 * Bundles the `easyai` command into dist/cli/: one entry plus a chunk per
 * lazily loaded command body. Node resolves and compiles a few large files
 * far faster than the ~1 000 modules the command imports unbundled, which is
 * most of `easyai --help`'s start-up time. The library itself (dist/index.js)
 * stays unbundled, so applications share one copy of `effect`.
 */
import { build } from "esbuild"
import { chmod, rm } from "node:fs/promises"

const outdir = "dist/cli"
await rm(outdir, { recursive: true, force: true })
await build({
  entryPoints: { easyai: "dist/programs/cli/main.js" },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // Native bindings and their prebuilt binaries are found relative to the package: never bundled.
  external: ["node-llama-cpp"],
  // Some bundled CommonJS dependencies call require() for Node built-ins.
  banner: { js: "import { createRequire as __easyaiCreateRequire } from 'node:module'; const require = __easyaiCreateRequire(import.meta.url);" },
  logLevel: "warning"
})
await chmod(`${outdir}/easyai.js`, 0o755)
