/**
 * Who may talk to the server: the API key check and the CORS policy.
 *
 * @module
 */
import { HttpMiddleware, HttpServerRequest } from "@effect/platform"
import { Effect, Redacted } from "effect"
import { createHash, timingSafeEqual } from "node:crypto"
import { toResponse, unauthorized } from "./ApiError.js"

/** Paths served without an API key: the page, the liveness probe, the scrape target. */
export const openPaths: ReadonlySet<string> = new Set(["/", "/health", "/metrics"])

const digest = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest()

/**
 * Whether `header` is `Bearer <key>`. Both sides are hashed first so the
 * comparison takes the same time whatever the length or content of a guess.
 */
export const bearerMatches = (header: string | undefined, key: Redacted.Redacted<string>): boolean => {
  const presented = header?.match(/^\s*bearer\s+(\S+)\s*$/i)?.[1] ?? ""
  const same = timingSafeEqual(digest(presented), digest(Redacted.value(key)))
  return same && presented !== ""
}

/** Requires the key on every path but the open ones (and CORS preflights, answered before this runs). */
export const requireApiKey = (key: Redacted.Redacted<string>) =>
  HttpMiddleware.make((app) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const path = new URL(request.url, "http://server").pathname
      if (openPaths.has(path) || bearerMatches(request.headers["authorization"], key)) return yield* app
      return toResponse(unauthorized())
    })
  )

/**
 * Which browser origins may call the server:
 * - `"*"`: any origin;
 * - `"localhost"`: pages served from localhost, 127.0.0.1 or [::1] on any port;
 * - a list: exactly these origins (e.g. `https://chat.example.com`).
 */
export type CorsPolicy = "*" | "localhost" | ReadonlyArray<string>

const loopbackHosts = new Set(["localhost", "127.0.0.1", "[::1]"])

/** Whether an `Origin` header names a page on this machine. */
export const isLocalOrigin = (origin: string): boolean => {
  try {
    const url = new URL(origin)
    return (url.protocol === "http:" || url.protocol === "https:") && loopbackHosts.has(url.hostname)
  } catch {
    return false
  }
}

/**
 * The default policy: permissive while no server-side tool touches the host;
 * with file, shell, evaluate or external tools on, localhost pages only — a
 * page on another site must not be able to drive tools on this machine.
 */
export const defaultCorsPolicy = (hostTools: boolean): CorsPolicy => (hostTools ? "localhost" : "*")

/** The CORS middleware for `policy`. */
export const cors = (policy: CorsPolicy) =>
  HttpMiddleware.cors({
    ...(policy === "*"
      ? {}
      : { allowedOrigins: policy === "localhost" ? isLocalOrigin : (origin: string) => policy.includes(origin) }),
    allowedMethods: ["GET", "HEAD", "POST", "DELETE", "OPTIONS"],
    allowedHeaders: ["authorization", "content-type", "x-easyai-inject", "mcp-session-id", "mcp-protocol-version"],
    exposedHeaders: ["retry-after", "mcp-session-id"],
    maxAge: 600
  })
