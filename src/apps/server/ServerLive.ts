/**
 * The server on a socket: `@effect/platform-node`'s HTTP server with the
 * connection timeouts set, and a graceful stop — when the scope closes
 * (SIGINT/SIGTERM under `NodeRuntime.runMain`) the server stops accepting,
 * lets running generations finish for a grace period, then interrupts
 * what is left (which cancels their generations) before the model is
 * released.
 *
 * ```ts
 * const server = ServerLive.layer({ model: LocalChatModel.layerFrom({ modelPath }), listen: { port: 8080 } })
 * ```
 *
 * @module
 */
import { type HttpApp, HttpMiddleware, HttpServer, type HttpServerError, type HttpServerRequest } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Duration, Effect, Layer, type Scope } from "effect"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import * as SessionStack from "../../layers/session/SessionStack.js"
import type { Admission } from "./admission.js"
import { capPerClient } from "./connectionCap.js"
import { hostAdmitter } from "./hostPolicy.js"
import { utf8Length } from "../../domain/utf8.js"
import { requireKnownHost } from "./security.js"
import * as ServerApp from "./ServerApp.js"
import {
  defaultBodyTimeoutSeconds,
  defaultGraceSeconds,
  defaultHost,
  defaultMaxClientConnections,
  defaultPort,
  defaultTimeoutSeconds,
  type ListenOptions,
  type ServerOptions
} from "./ServerOptions.js"

/** How long interrupted requests get to release their generations after the grace period. */
const releaseTimeout = Duration.seconds(5)

/** Stops accepting, waits up to `grace` for running requests, then cuts the rest. */
const drain = (node: Server, admission: Servable["admission"], grace: Duration.Duration) =>
  Effect.gen(function*() {
    node.close()
    const load = yield* admission.load
    const running = load.active + load.queued
    if (running > 0) {
      yield* Effect.logInfo(`shutdown: letting ${running} running request(s) finish (grace ${Duration.format(grace)})`)
    }
    const drained = yield* admission.idle.pipe(Effect.interruptible, Effect.timeout(grace), Effect.isSuccess)
    if (drained) return
    yield* Effect.logWarning(`shutdown: interrupting requests still running after ${Duration.format(grace)}`)
    node.closeAllConnections()
    yield* admission.idle.pipe(Effect.interruptible, Effect.timeout(releaseTimeout), Effect.ignore)
  })

/**
 * Requests that get no `http.server` span: the reads (probes, scrapes,
 * listings, the page), where at thousands a second the tracer would be a
 * measurable share of the work. A `POST` runs a model, a tool or an MCP
 * call, and its span is the root of everything that request does.
 */
const untraced = (request: HttpServerRequest.HttpServerRequest): boolean => request.method !== "POST"

/** An app and the gate whose load tells when its running requests have drained. */
export interface Servable {
  readonly app: HttpApp.Default
  readonly admission: Pick<Admission, "load" | "idle">
  /** The body of `GET /health`, answered on the socket itself when given (see `answerProbe`). */
  readonly probe?: () => string
}

/**
 * Answers `GET /health` from node's request event, before a fiber is
 * forked: orchestrators and load balancers poll it every second or so,
 * and through the Effect stack it costs twice what the probe is worth.
 * Only a request the stack would answer the same way takes this path: a
 * known `Host`, no `Origin` (so no CORS headers are due), the exact path.
 */
const answerProbe = (
  probe: () => string,
  admitted: (host: string | undefined) => boolean,
  request: IncomingMessage,
  response: ServerResponse
): boolean => {
  if (request.method !== "GET" || request.url !== "/health") return false
  if (request.headers.origin !== undefined || !admitted(request.headers.host)) return false
  const body = probe()
  response.writeHead(200, { "content-type": "application/json", "content-length": utf8Length(body) })
  response.end(body)
  return true
}

/**
 * Serves `served.app` on a new socket for the life of the scope, behind
 * the listener's own guards: the `Host` check (answers only the names this
 * socket is known by), the body deadline and the per-client connection cap.
 */
export const serve = (
  served: Servable,
  listen: ListenOptions = {}
): Effect.Effect<HttpServer.HttpServer, HttpServerError.ServeError, Scope.Scope> =>
  Effect.gen(function*() {
    const bodyMillis = Math.max(1, listen.bodyTimeoutSeconds ?? defaultBodyTimeoutSeconds) * 1000
    // node checks the request deadline on this interval; a tenth of the deadline keeps a 408 within 10% of it.
    const node = createServer({ connectionsCheckingInterval: Math.min(30_000, Math.max(100, bodyMillis / 10)) })
    const timeoutMillis = (listen.timeoutSeconds ?? defaultTimeoutSeconds) * 1000
    // A whole request (headers and body) must arrive within the body deadline, else node answers 408 and closes.
    // The response is not bounded by it: a connection is closed only when silent for the timeout in either direction.
    node.requestTimeout = bodyMillis
    node.headersTimeout = Math.min(bodyMillis, 60_000)
    node.setTimeout(timeoutMillis)
    capPerClient(node, Math.max(1, listen.maxClientConnections ?? defaultMaxClientConnections))
    const host = listen.host ?? defaultHost
    const server = yield* NodeHttpServer.make(() => node, { host, port: listen.port ?? defaultPort })
    const address = server.address
    const admitted = address._tag === "TcpAddress"
      ? hostAdmitter({
        address: address.hostname,
        port: address.port,
        listenHost: host,
        ...(listen.allowedHosts === undefined ? {} : { allowedHosts: listen.allowedHosts })
      })
      : () => true // a Unix socket: no browser page can reach it by a name
    const handler = yield* HttpMiddleware.withTracerDisabledWhenEffect(
      NodeHttpServer.makeHandler(requireKnownHost(admitted)(served.app)),
      untraced
    )
    const { probe } = served
    const listener = probe === undefined
      ? handler
      : (request: IncomingMessage, response: ServerResponse) => {
        if (!answerProbe(probe, admitted, request, response)) handler(request, response)
      }
    node.on("request", listener)
    yield* Effect.addFinalizer(() => Effect.sync(() => node.off("request", listener)))
    // Added after the server's own finalizer, so it runs before it.
    yield* Effect.addFinalizer(() => drain(node, served.admission, Duration.seconds(listen.graceSeconds ?? defaultGraceSeconds)))
    return server
  })

/** Everything a served stack is built from. */
export interface Options<E> extends SessionStack.Options<E> {
  readonly server?: ServerOptions
  readonly listen?: ListenOptions
}

/** The socket and the app on it (for banners and tests). */
export type Services = HttpServer.HttpServer | ServerApp.ServerApp

/**
 * The whole server: the session stack on `options.model` (the model is
 * loaded once and shared by the app and the agent loop), the app, the
 * socket.
 */
export const layer = <E>(
  options: Options<E>
): Layer.Layer<Services, E | SessionStack.BuildError | HttpServerError.ServeError> => {
  const services = Layer.merge(SessionStack.layer(options), options.model)
  // The remote sessions' loops take the stack's loop options, as the chat's loop does.
  const serverOptions = options.agent === undefined
    ? options.server
    : { ...options.server, agentSessions: { agent: options.agent, ...options.server?.agentSessions } }
  const app = Layer.scoped(
    ServerApp.ServerApp,
    ServerApp.make(serverOptions)
  )
  const server = Layer.scoped(
    HttpServer.HttpServer,
    Effect.flatMap(ServerApp.ServerApp, (served) => serve(served, options.listen))
  )
  return Layer.provideMerge(server, app).pipe(Layer.provide(services))
}
