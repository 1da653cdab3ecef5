/**
 * The one HTTP client stack: `@effect/platform`'s HttpClient over an undici
 * agent that honours the TLS options, passed through {@link TransformClient}.
 * The remote client, the MCP client, remote sessions and the web tools all
 * build their clients here, so a proxy, a recording client or a test client
 * swaps by one Layer:
 *
 * ```ts
 * const recorded = HttpClientLive.transform(HttpClient.tapRequest(record))
 * program.pipe(Effect.provide(stack), Effect.provide(recorded))
 * ```
 *
 * @module
 */
import { HttpClient } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import * as Undici from "@effect/platform-node/Undici"
import { Context, Effect, Layer, type Scope } from "effect"
import { readFile } from "node:fs/promises"
import type { TlsOptions } from "../../domain/ClientConfig.js"
import { ConfigurationError } from "../../domain/errors.js"
import { networkErrorText } from "../../domain/errorText.js"

/**
 * A hook applied to every HTTP client the library builds, as
 * `@effect/ai-openai`'s `transformClient` option is: add a proxy, TLS
 * material, tracing or a recorder. Identity by default. The web tools pass
 * it their guarded client, whose connections keep their address policy
 * whatever the hook adds on top. A hook that returns an unrelated client
 * takes that policy away (the web tools check addresses where connections
 * are made, nowhere else): replace the client only in tests, or with an
 * egress proxy that enforces its own policy.
 */
export class TransformClient extends Context.Reference<TransformClient>()("easyai/HttpClient/TransformClient", {
  defaultValue: (): (client: HttpClient.HttpClient) => HttpClient.HttpClient => (client) => client
}) {}

/**
 * A Layer setting the {@link TransformClient} hook: a proxy, a recorder
 * (`HttpClient.tapRequest`), or a whole test client (`() => testClient`).
 */
export const transform = (
  f: (client: HttpClient.HttpClient) => HttpClient.HttpClient
): Layer.Layer<never> => Layer.succeed(TransformClient, f)

/** `client` through the {@link TransformClient} in context. */
export const transformed = (client: HttpClient.HttpClient): Effect.Effect<HttpClient.HttpClient> =>
  Effect.map(TransformClient, (transform) => transform(client))

/** An undici agent: trusts `caFile` when given, skips verification when `insecure`. Destroyed with the scope. */
export const makeDispatcher = (
  tls: TlsOptions | undefined
): Effect.Effect<Undici.Dispatcher, ConfigurationError, Scope.Scope> =>
  Effect.gen(function*() {
    const caFile = tls?.caFile
    const ca = caFile === undefined ? undefined : yield* Effect.tryPromise({
      try: () => readFile(caFile, "utf8"),
      catch: (error) =>
        new ConfigurationError({ message: `cannot read the TLS CA file ${caFile}: ${networkErrorText(error, String(error))}` })
    })
    const connect = {
      ...(ca === undefined ? {} : { ca }),
      ...(tls?.insecure === true ? { rejectUnauthorized: false } : {})
    }
    return yield* Effect.acquireRelease(
      Effect.sync(() => new Undici.Agent({ connect })),
      (agent) => Effect.ignore(Effect.tryPromise(() => agent.destroy()))
    )
  })

/** How the default client is built. */
export interface Options {
  /** A CA file to trust, or no verification at all. */
  readonly tls?: TlsOptions | undefined
}

/**
 * The default client: undici with `options.tls`, then the
 * {@link TransformClient} in context. Its sockets close with the scope.
 */
export const make = (options: Options = {}): Effect.Effect<HttpClient.HttpClient, ConfigurationError, Scope.Scope> =>
  Effect.flatMap(makeDispatcher(options.tls), (dispatcher) => transformed(NodeHttpClient.makeUndici(dispatcher)))

/** {@link make} as a Layer: the default `HttpClient` of the stack. */
export const layer = (options: Options = {}): Layer.Layer<HttpClient.HttpClient, ConfigurationError> =>
  Layer.scoped(HttpClient.HttpClient, make(options))
