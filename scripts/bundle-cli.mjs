/**
 * Bundles the `easyai` command into dist/cli/: one entry plus a chunk per
 * lazily loaded command body. Node resolves and compiles a few large files
 * far faster than the ~1 000 modules the command imports unbundled, which is
 * most of `easyai --help`'s start-up time. The library itself (dist/index.js)
 * stays unbundled, so applications share one copy of `effect`.
 *
 * Run as a script, it bundles the compiled command (dist/programs/cli/main.js).
 * The tests' global setup bundles the sources instead, so every program the
 * tests start is the current code, started as a user starts it.
 */
import { build } from "esbuild"
import { chmod, rm } from "node:fs/promises"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("../", import.meta.url))

/** Bundles `entry` (a path from the project's root, compiled JavaScript or TypeScript) into dist/cli/. */
export const bundleCli = async (entry) => {
  const outdir = `${root}dist/cli`
  await rm(outdir, { recursive: true, force: true })
  await build({
    entryPoints: { easyai: `${root}${entry}` },
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
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bundleCli("dist/programs/cli/main.js")
