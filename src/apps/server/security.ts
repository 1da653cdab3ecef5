/**
 * Who may talk to the server: the `Host` check, the API key check and the
 * CORS policy.
 *
 * @module
 */
import { HttpMiddleware, HttpServerRequest } from "@effect/platform"
import { Effect, Redacted } from "effect"
import { createHash, timingSafeEqual } from "node:crypto"
import { forbiddenOrigin, misdirectedHost, toResponse, unauthorized } from "./ApiError.js"
import { admits, type CorsPolicy, isSameOrigin } from "./originPolicy.js"

const digest = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest()

/**
 * `Bearer <token>`, with only ASCII spaces and tabs around it (RFC 9110's
 * whitespace) and a token of visible ASCII: a key followed by a Unicode
 * space is a different key, not the same one padded.
 */
const bearer = /^[ \t]*bearer[ \t]+([\x21-\x7e]+)[ \t]*$/i

/**
 * Whether `header` is `Bearer <key>`. Both sides are hashed first so the
 * comparison takes the same time whatever the length or content of a guess.
 */
export const bearerMatches = (header: string | undefined, key: Redacted.Redacted<string>): boolean => {
  const presented = header?.match(bearer)?.[1] ?? ""
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
      bearerMatches(request.headers["authorization"], key) || apiKeyHeaderMatches(request.headers["x-api-key"], key)
        ? app
        : Effect.succeed(toResponse(unauthorized())))
  )

/** Whether an `X-Api-Key` header (how Anthropic's clients send the key) holds `key`, compared in constant time. */
const apiKeyHeaderMatches = (header: string | undefined, key: Redacted.Redacted<string>): boolean =>
  header !== undefined && header !== "" && timingSafeEqual(digest(header), digest(Redacted.value(key)))

/**
 * Answers 421 to a request whose `Host` the server is not known by (see
 * `hostPolicy.ts`), before anything else runs: a page that rebinds its
 * own name to this machine reaches no route.
 */
export const requireKnownHost = (admitted: (host: string | undefined) => boolean) =>
  HttpMiddleware.make((app) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      const host = request.headers["host"]
      return admitted(host) ? app : Effect.succeed(toResponse(misdirectedHost(host)))
    })
  )

const readOnlyMethods = new Set(["GET", "HEAD", "OPTIONS"])

/**
 * Refuses (403) a state-changing request from a browser page that is
 * neither the server's own (same origin) nor admitted by the policy. CORS
 * alone only hides the response: a cross-site "simple" POST (`text/plain`,
 * no preflight) would still run the agent and its tools. Browsers always
 * send `Origin` on such requests; programs that send none (curl, SDKs) are
 * not affected.
 */
export const refuseForeignOrigins = (policy: CorsPolicy) =>
  HttpMiddleware.make((app) =>
    policy === "*" ? app : Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      const origin = request.headers["origin"]
      if (origin === undefined || readOnlyMethods.has(request.method)) return app
      if (isSameOrigin(origin, request.headers["host"]) || admits(policy, origin)) return app
      return Effect.succeed(toResponse(forbiddenOrigin(origin)))
    })
  )

/** The CORS middleware for `policy`: an origin it does not admit gets no `Access-Control-Allow-Origin`. */
export const cors = (policy: CorsPolicy) =>
  HttpMiddleware.cors({
    ...(policy === "*"
      ? {}
      : { allowedOrigins: (origin: string) => admits(policy, origin) }),
    allowedMethods: ["GET", "HEAD", "POST", "DELETE", "OPTIONS"],
    allowedHeaders: ["authorization", "x-api-key", "anthropic-version", "content-type", "x-easyai-inject", "x-easyai-events", "mcp-session-id", "mcp-protocol-version"],
    exposedHeaders: ["retry-after", "mcp-session-id"],
    maxAge: 600
  })
