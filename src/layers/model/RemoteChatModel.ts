/**
 * `ChatModel` on a remote OpenAI-compatible server: the same Agent, Session
 * and façade, with the model behind HTTP.
 *
 * ```ts
 * const model = RemoteChatModel.layerFrom({ baseUrl: "http://ai.local:8080", model: "EasyAi" })
 * const fromEnv = RemoteChatModel.layerConfig() // EASYAI_URL, EASYAI_API_KEY, …
 * ```
 *
 * @module
 */
import { type ConfigError, Effect, Layer } from "effect"
import type { ClientConfig } from "../../domain/ClientConfig.js"
import type { ConfigurationError } from "../../domain/errors.js"
import { ChatModel } from "../../services/ChatModel.js"
import { Client } from "../../services/Client.js"
import type { Embedder } from "../../services/Embedder.js"
import * as ClientLive from "../client/ClientLive.js"
import * as RemoteEmbedder from "../embedder/RemoteEmbedder.js"

/** `ChatModel` on the `Client` in context. */
export const layer: Layer.Layer<ChatModel, never, Client> = Layer.effect(
  ChatModel,
  Effect.map(Client, (client) => ({ info: client.info, stream: client.chat }))
)

/** Connects to a server and provides it as `ChatModel`, as `Embedder`, and as `Client` (for the management calls). */
export const layerFrom = (config: ClientConfig): Layer.Layer<ChatModel | Embedder | Client, ConfigurationError> =>
  Layer.merge(layer, RemoteEmbedder.layer).pipe(Layer.provideMerge(ClientLive.layer(config)))

/** As {@link layerFrom}, configured from the environment with `overrides` taking precedence. */
export const layerConfig = (
  overrides: Partial<ClientConfig> = {}
): Layer.Layer<ChatModel | Embedder | Client, ConfigError.ConfigError | ConfigurationError> =>
  Layer.merge(layer, RemoteEmbedder.layer).pipe(Layer.provideMerge(ClientLive.layerConfig(overrides)))
