/**
 * Who may talk to the server: the API key check and the CORS policy.
 *
 * @module
 */
import { HttpMiddleware, HttpServerRequest } from "@effect/platform"
import { Effect, Redacted } from "effect"
import { createHash, timingSafeEqual } from "node:crypto"
import { forbiddenOrigin, toResponse, unauthorized } from "./ApiError.js"

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

/**
 * Requires the key on the routes it wraps. It is applied per route, after
 * routing, so whatever path spelling reached a protected handler, the
 * handler's own check runs (CORS preflights are answered before routing).
 */
export const requireApiKey = (key: Redacted.Redacted<string>) =>
  HttpMiddleware.make((app) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      bearerMatches(request.headers["authorization"], key) ? app : Effect.succeed(toResponse(unauthorized())))
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

/** Whether `policy` admits `origin`. */
export const admits = (policy: CorsPolicy, origin: string): boolean =>
  policy === "*" || (policy === "localhost" ? isLocalOrigin(origin) : policy.includes(origin))

const readOnlyMethods = new Set(["GET", "HEAD", "OPTIONS"])

/**
 * Refuses (403) a state-changing request from a browser page the policy
 * does not admit. CORS alone only hides the response: a cross-site "simple"
 * POST (`text/plain`, no preflight) would still run the agent and its
 * tools. Browsers always send `Origin` on such requests; programs that
 * send none (curl, SDKs) are not affected.
 */
export const refuseForeignOrigins = (policy: CorsPolicy) =>
  HttpMiddleware.make((app) =>
    policy === "*" ? app : Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      const origin = request.headers["origin"]
      if (origin === undefined || readOnlyMethods.has(request.method) || admits(policy, origin)) return app
      return Effect.succeed(toResponse(forbiddenOrigin(origin)))
    })
  )

/** The CORS middleware for `policy`. */
export const cors = (policy: CorsPolicy) =>
  HttpMiddleware.cors({
    ...(policy === "*"
      ? {}
      : { allowedOrigins: (origin: string) => admits(policy, origin) }),
    allowedMethods: ["GET", "HEAD", "POST", "DELETE", "OPTIONS"],
    allowedHeaders: ["authorization", "content-type", "x-easyai-inject", "mcp-session-id", "mcp-protocol-version"],
    exposedHeaders: ["retry-after", "mcp-session-id"],
    maxAge: 600
  })
