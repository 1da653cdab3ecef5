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
import { type HttpApp, HttpMiddleware, HttpServer, type HttpServerError } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Duration, Effect, Layer, type Scope } from "effect"
import { createServer, type Server } from "node:http"
import * as SessionStack from "../../layers/session/SessionStack.js"
import type { Admission } from "./admission.js"
import * as ServerApp from "./ServerApp.js"
import {
  defaultGraceSeconds,
  defaultHost,
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

/** An app and the gate whose load tells when its running requests have drained. */
export interface Servable {
  readonly app: HttpApp.Default
  readonly admission: Pick<Admission, "load" | "idle">
}

/** Serves `served.app` on a new socket for the life of the scope. */
export const serve = (
  served: Servable,
  listen: ListenOptions = {}
): Effect.Effect<HttpServer.HttpServer, HttpServerError.ServeError, Scope.Scope> =>
  Effect.gen(function*() {
    const node = createServer()
    const timeoutMillis = (listen.timeoutSeconds ?? defaultTimeoutSeconds) * 1000
    // A whole request must arrive within the timeout; a connection silent that long in either direction is closed.
    node.requestTimeout = timeoutMillis
    node.headersTimeout = Math.min(timeoutMillis, 60_000)
    node.setTimeout(timeoutMillis)
    const server = yield* NodeHttpServer.make(() => node, {
      host: listen.host ?? defaultHost,
      port: listen.port ?? defaultPort
    })
    // No span per request: at thousands of small requests a second the tracer is a measurable share of the work.
    yield* HttpMiddleware.withTracerDisabledWhenEffect(server.serve(served.app), () => true)
    // Added after the server's own finalizer, so it runs before it.
    yield* Effect.addFinalizer(() => drain(node, served.admission, Duration.seconds(listen.graceSeconds ?? defaultGraceSeconds)))
    return server
  })

/** Everything a served stack is built from. */
export interface Options<E> extends SessionStack.Options<E> {
  readonly server?: ServerOptions
  readonly listen?: ListenOptions
}

/**
 * Whether any server-side tool reaches beyond answering: files, processes,
 * memory, skills, other MCP servers, or web tools allowed into non-public
 * networks.
 */
const reachesBeyond = <E>(options: Options<E>): boolean =>
  options.host !== undefined || options.memory !== undefined || options.skills !== undefined ||
  (options.mcp?.servers?.length ?? 0) > 0 ||
  (options.web !== undefined && options.web !== false && (options.web.allowNetworks?.length ?? 0) > 0)

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
  const app = Layer.effect(
    ServerApp.ServerApp,
    ServerApp.make({ hostTools: reachesBeyond(options), ...options.server })
  )
  const server = Layer.scoped(
    HttpServer.HttpServer,
    Effect.flatMap(ServerApp.ServerApp, (served) => serve(served, options.listen))
  )
  return Layer.provideMerge(server, app).pipe(Layer.provide(services))
}
