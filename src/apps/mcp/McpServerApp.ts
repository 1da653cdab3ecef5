/**
 * The MCP server as an HTTP app: `/mcp` (Streamable HTTP) over the
 * `ToolRegistry` in context, and `/health`. `easyai mcp` serves it alone,
 * without a model; `easyai serve` mounts the same routes next to the chat
 * API.
 *
 * @module
 */
import { type HttpApp, HttpRouter, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, type Redacted } from "effect"
import { ToolRegistry } from "../../services/ToolRegistry.js"
import * as Admission from "../server/admission.js"
import { answerRoutingFailures } from "../server/ApiError.js"
import { type CorsPolicy, noCrossOrigin } from "../server/originPolicy.js"
import { cors, refuseForeignOrigins, requireApiKey } from "../server/security.js"
import * as Dispatcher from "./dispatcher.js"
import * as HttpTransport from "./httpTransport.js"

/** How the standalone MCP server behaves. */
export interface McpServerOptions extends Dispatcher.DispatcherOptions, HttpTransport.HttpTransportOptions {
  /** When set, `/mcp` needs `Authorization: Bearer <key>`. */
  readonly apiKey?: Redacted.Redacted<string>
  /** Browser origins admitted cross-origin. Default: none. */
  readonly cors?: CorsPolicy
  /** Requests that run at once; more are answered 503. Default `maxConcurrentRequests` (16), as on stdio. */
  readonly maxConcurrent?: number
}

/** The `/mcp` routes: POST, DELETE and GET over one transport. */
export const routes = (transport: HttpTransport.HttpTransport) =>
  HttpRouter.empty.pipe(
    HttpRouter.post("/mcp", transport.post),
    HttpRouter.del("/mcp", transport.remove),
    HttpRouter.get("/mcp", transport.get)
  )

/**
 * The transport over the registry in context, behind a gate that runs at
 * most `maxConcurrent` requests and refuses the rest (no queue), and whose
 * load lets a graceful stop wait for them.
 */
export const makeTransport = (options: McpServerOptions = {}) =>
  Effect.gen(function*() {
    const registry = yield* ToolRegistry
    const admission = yield* Admission.make(Math.max(1, options.maxConcurrent ?? Dispatcher.maxConcurrentRequests), 0)
    return { transport: HttpTransport.make(Dispatcher.make(registry, options), admission, options), admission }
  })

/** The standalone app: `/mcp` and `/health`, behind the key and CORS policy. */
export const make = (
  options: McpServerOptions = {}
): Effect.Effect<{ readonly app: HttpApp.Default; readonly admission: Admission.Admission }, never, ToolRegistry> =>
  Effect.gen(function*() {
    const registry = yield* ToolRegistry
    const { admission, transport } = yield* makeTransport(options)
    const health = Effect.gen(function*() {
      const tools = (yield* registry.specs).filter((spec) => options.allow?.has(spec.name) ?? true)
      return HttpServerResponse.unsafeJson({
        status: "ok",
        tools: tools.length,
        sessions: yield* transport.sessionCount,
        compat: { mcp: ["/mcp"] }
      })
    })
    const guarded = options.apiKey === undefined ? routes(transport) : HttpRouter.use(routes(transport), requireApiKey(options.apiKey))
    const router = HttpRouter.concat(HttpRouter.empty.pipe(HttpRouter.get("/health", health)), guarded)
    const policy = options.cors ?? noCrossOrigin
    const routed: Effect.Effect<HttpServerResponse.HttpServerResponse, never, HttpServerRequest.HttpServerRequest> = answerRoutingFailures(() => "no such route: this server answers /mcp and /health")(router)
    return { app: cors(policy)(refuseForeignOrigins(policy)(routed)), admission }
  })
