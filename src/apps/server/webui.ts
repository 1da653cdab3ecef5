/**
 * The chat page served at `/`: one self-contained HTML file built from
 * `webui/` at build time (`dist/webui/index.html`, scripts and styles
 * inlined, nothing fetched from elsewhere), with the operator's title and
 * placeholder filled in when the server starts.
 *
 * @module
 */
import { HttpServerResponse } from "@effect/platform"
import { Effect, Either, Option } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { readFile } from "node:fs/promises"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { isObject, parseJson } from "../../domain/json.js"

/** How the page introduces itself. */
export interface WebUiOptions {
  /** The page's title and brand. Default `easyai`. */
  readonly title?: string
  /** The composer's placeholder. Default `Message <title>…`. */
  readonly placeholder?: string
}

/** The default title. */
export const defaultTitle = "easyai"

/**
 * What the page may load and talk to: only itself and this server's API.
 * Model output is rendered as Markdown, so a page that can reach nothing
 * else cannot be made to leak a conversation, even by a crafted answer.
 */
export const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'unsafe-inline'",
  "style-src 'unsafe-inline'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "font-src data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'"
].join("; ")

/** The package's root: the nearest folder above this module whose package.json is easyai's (sources, dist or bundle alike). */
const packageRoot = (): string | undefined => {
  let dir = path.dirname(fileURLToPath(import.meta.url))
  while (true) {
    const manifest = path.join(dir, "package.json")
    if (existsSync(manifest)) {
      try {
        const parsed = Either.getOrUndefined(parseJson(readFileSync(manifest, "utf8")))
        if (isObject(parsed) && parsed["name"] === "easyai") return dir
      } catch {
        // Not a readable manifest: keep looking further up.
      }
    }
    const parent = path.dirname(dir)
    if (parent === dir) return undefined
    dir = parent
  }
}

/** Where the built page is. */
export const pageFile = (): string | undefined => {
  const root = packageRoot()
  return root === undefined ? undefined : path.join(root, "dist", "webui", "index.html")
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[char] ?? char)

/** The page template with the options filled in; the config's JSON can hold no `</script>`. */
export const fillPage = (template: string, options: WebUiOptions): string => {
  const title = options.title ?? defaultTitle
  const config = JSON.stringify({ title, placeholder: options.placeholder ?? `Message ${title}…` }).replace(/</g, "\\u003c")
  return template
    .replace("<!--easyai-title-->", () => escapeHtml(title))
    .replace("<!--easyai-config-->", () => `<script id="easyai-config" type="application/json">${config}</script>`)
}

const pointer = HttpServerResponse.text(
  "easyai server: the web UI is not built here (npm run build makes it). API: POST /v1/chat/completions (OpenAI-compatible); GET /health, /v1/models, /v1/tools, /props, /metrics\n"
)

/**
 * The `GET /` handler: the page, read once now. Where it was never built
 * (sources run without `npm run build`), a text pointer to the API instead,
 * and a warning in the log.
 */
export const make = (options: WebUiOptions = {}) =>
  Effect.gen(function*() {
    const file = pageFile()
    const template = file === undefined
      ? Option.none<string>()
      : yield* Effect.option(Effect.tryPromise(() => readFile(file, "utf8")))
    if (Option.isNone(template)) {
      yield* Effect.logWarning(`the web UI is not built (${file ?? "dist/webui/index.html"} is missing): GET / answers with a pointer to the API`)
      return Effect.succeed(pointer)
    }
    const page = fillPage(template.value, options)
    return Effect.succeed(HttpServerResponse.html(page).pipe(
      HttpServerResponse.setHeaders({
        "content-security-policy": contentSecurityPolicy,
        "x-content-type-options": "nosniff",
        "referrer-policy": "no-referrer",
        "cache-control": "no-cache"
      })
    ))
  })
