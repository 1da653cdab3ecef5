/**
 * easyai/testing: what a user needs to test an agent or an HTTP service
 * in-process, without a model file or a network: a chat model that replays a
 * script and records what it was asked, a session stack on it, and the
 * server on a loopback port with an `HttpClient` that reaches it.
 *
 * @module
 */
import { type HttpClient, HttpServer, type HttpServerError } from "@effect/platform"
import { Layer } from "effect"
import * as ServerLive from "./apps/server/ServerLive.js"
import { layer as httpClientLayer } from "./layers/http/HttpClientLive.js"
import * as ScriptedChatModel from "./layers/model/ScriptedChatModel.js"
import type * as SessionLive from "./layers/session/SessionLive.js"
import * as SessionStack from "./layers/session/SessionStack.js"

export * as ScriptedChatModel from "./layers/model/ScriptedChatModel.js"

/**
 * A session whose model replays `turns`, with the script's recorder
 * (`ScriptedChatModel.ScriptedChatModel`) alongside it; the preamble's clock
 * is UTC so prompts are the same on every machine.
 */
export const scriptedSession = (turns: ReadonlyArray<ScriptedChatModel.Turn>, session: SessionLive.Config = {}) => {
  const model = ScriptedChatModel.layer(turns)
  return Layer.merge(SessionStack.layer({ model, session, preamble: { timeZone: "UTC" } }), model)
}

/**
 * The server built from `options` on a free loopback port, and an
 * `HttpClient` whose relative URLs (`/v1/chat/completions`) go to it.
 */
export const testServer = <E>(
  options: ServerLive.Options<E>
): Layer.Layer<
  ServerLive.Services | HttpClient.HttpClient,
  E | SessionStack.BuildError | HttpServerError.ServeError
> => {
  const server = ServerLive.layer({ ...options, listen: { port: 0, graceSeconds: 1, ...options.listen } })
  // Without TLS options there is no CA file to read: the default client cannot fail to build.
  const client = HttpServer.layerTestClient.pipe(Layer.provide(Layer.orDie(httpClientLayer())))
  return Layer.provideMerge(client, server)
}

/**
 * A server whose model replays `turns` (and records what it was asked), by
 * default with no tools of its own: what a client program talks to in tests.
 */
export const scriptedServer = (
  turns: ReadonlyArray<ScriptedChatModel.Turn>,
  options: Partial<ServerLive.Options<never>> = {}
) => {
  const model = ScriptedChatModel.layer(turns)
  return Layer.merge(testServer({ model, session: { withDefaultTools: false }, ...options }), model)
}
