/**
 * Which browser origins may call a server, as the operator writes it
 * (`--cors`, INI `[SERVER] cors`) and as the server checks it. Nothing is
 * admitted cross-origin unless the operator names it; the server's own page
 * is same-origin and needs no entry.
 *
 * @module
 */
import { Either } from "effect"

/**
 * The browser origins admitted cross-origin:
 * - `"*"`: any origin (only when written out);
 * - `"localhost"`: pages served from localhost, 127.0.0.1 or [::1] on any port;
 * - a list: exactly these origins (e.g. `https://chat.example.com`); empty: none, the default.
 */
export type CorsPolicy = "*" | "localhost" | ReadonlyArray<string>

/** The default: no cross-origin access at all. */
export const noCrossOrigin: CorsPolicy = []

const loopbackNames = new Set(["localhost", "127.0.0.1", "[::1]"])

const parseUrl = (text: string): URL | undefined => {
  try {
    return new URL(text)
  } catch {
    return undefined
  }
}

/** Whether an `Origin` header names a page on this machine. */
export const isLocalOrigin = (origin: string): boolean => {
  const url = parseUrl(origin)
  return url !== undefined && (url.protocol === "http:" || url.protocol === "https:") && loopbackNames.has(url.hostname)
}

/** Whether `policy` admits the cross-origin page `origin`. */
export const admits = (policy: CorsPolicy, origin: string): boolean =>
  policy === "*" || (policy === "localhost" ? isLocalOrigin(origin) : policy.includes(origin))

/** Whether the page `origin` was served by the host the request names (`Host`): the server's own page. */
export const isSameOrigin = (origin: string, host: string | undefined): boolean =>
  host !== undefined && parseUrl(origin)?.host === host.toLowerCase()

/** One origin as a browser serializes it (`https://a.example`, no path, default port dropped), or why not. */
const normalOrigin = (item: string): Either.Either<string, string> => {
  const url = parseUrl(item)
  return url !== undefined && url.origin !== "null" && url.href === `${url.origin}/`
    ? Either.right(url.origin)
    : Either.left(`${JSON.stringify(item)} is not an origin: write scheme://host[:port], e.g. https://chat.example.com`)
}

/**
 * Reads a policy as the operator writes it: `*`, `localhost`, `none` (or
 * nothing), or a comma-separated list of origins.
 */
export const parseCorsPolicy = (text: string): Either.Either<CorsPolicy, string> => {
  const items = text.split(",").map((item) => item.trim()).filter((item) => item !== "")
  const [only] = items
  if (only === undefined || (items.length === 1 && only === "none")) return Either.right(noCrossOrigin)
  if (items.length === 1 && (only === "*" || only === "localhost")) return Either.right(only)
  const keyword = items.find((item) => item === "*" || item === "localhost" || item === "none")
  if (keyword !== undefined) return Either.left(`${keyword} stands alone: it cannot be listed with origins`)
  return Either.all(items.map(normalOrigin))
}

/** The policy as the banner and `/props` say it. */
export const describeCorsPolicy = (policy: CorsPolicy): string =>
  typeof policy === "string" ? policy : policy.length === 0 ? "none" : policy.join(",")
