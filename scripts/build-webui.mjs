/**
 * Builds the chat web UI that `easyai serve` serves at `/`: webui/src
 * (Preact + TSX) bundled by esbuild into one self-contained page,
 * dist/webui/index.html, with its CSS in a <style> and its JS in a <script>.
 * The page keeps the server's two markers (<!--easyai-title-->,
 * <!--easyai-config-->) for the server to fill in.
 */
import { build } from "esbuild"
import { mkdir, readFile, writeFile } from "node:fs/promises"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const template = join(root, "webui/index.html")
const output = join(root, "dist/webui/index.html")

const result = await build({
  entryPoints: [join(root, "webui/src/main.tsx")],
  outdir: join(root, "dist/webui"), // nothing is written: only the names of the in-memory outputs
  write: false,
  bundle: true,
  minify: true,
  format: "iife",
  target: "es2020",
  platform: "browser",
  jsx: "automatic",
  jsxImportSource: "preact",
  legalComments: "none",
  charset: "utf8",
  define: { "process.env.NODE_ENV": '"production"' },
  // esbuild escapes "</script" inside strings and regexps of the bundle.
  supported: { "inline-script": false },
  loader: { ".css": "css" },
  logLevel: "warning"
})

const text = (extension) => {
  const file = result.outputFiles.find((candidate) => candidate.path.endsWith(extension))
  if (file === undefined) throw new Error(`esbuild produced no ${extension} output`)
  return file.text
}
// Nothing in the inlined code may end its element early or put the HTML
// parser into the "script data escaped" states: "</script" (belt and braces
// after esbuild's own escaping) and "<!--", which the bundled libraries
// carry in strings and regexps, where "\x3C" means the same "<".
const js = text(".js")
  .replace(/<\/script/gi, "<\\/script")
  .replace(/(?<!\\)<!--/g, "\\x3C!--")
const css = text(".css").replace(/<\/style/gi, "<\\/style")
for (const [name, code, forbidden] of [["script", js, /<\/script|<!--/i], ["style", css, /<\/style/i]]) {
  if (forbidden.test(code)) throw new Error(`the inlined ${name} still contains ${forbidden}`)
}

const page = await readFile(template, "utf8")
for (const marker of ["<!--easyai-title-->", "<!--easyai-config-->", "<!--webui-style-->", "<!--webui-script-->"]) {
  if (!page.includes(marker)) throw new Error(`${template} lacks the marker ${marker}`)
}
// A function replacement: "$&" and friends in the bundle stay literal.
const html = page
  .replace("<!--webui-style-->", () => `<style>${css}</style>`)
  .replace("<!--webui-script-->", () => `<script>${js}</script>`)

await mkdir(dirname(output), { recursive: true })
await writeFile(output, html)
