/**
 * `ChatModel` on a local `Engine`: the same Agent, Session and façade, on a
 * GGUF model running in-process.
 *
 * ```ts
 * const model = LocalChatModel.layerFrom({ modelPath: "model.gguf" })
 * ```
 *
 * @module
 */
import { Effect, Layer } from "effect"
import type { EngineConfig } from "../../domain/EngineConfig.js"
import type { ModelLoadError } from "../../domain/errors.js"
import { ChatModel } from "../../services/ChatModel.js"
import type { Embedder } from "../../services/Embedder.js"
import { Engine } from "../../services/Engine.js"
import * as LocalEmbedder from "../embedder/LocalEmbedder.js"
import * as EngineLive from "../engine/EngineLive.js"

/** `ChatModel` on the `Engine` in context. */
export const layer: Layer.Layer<ChatModel, never, Engine> = Layer.effect(
  ChatModel,
  Effect.map(Engine, (engine) => ({ info: Effect.succeed(engine.info), stream: engine.stream }))
)

/** Loads a model and provides it as `ChatModel`, as `Embedder`, and as `Engine` (the escape hatch). */
export const layerFrom = (config: EngineConfig): Layer.Layer<ChatModel | Embedder | Engine, ModelLoadError> =>
  Layer.merge(layer, LocalEmbedder.layer).pipe(Layer.provideMerge(EngineLive.layer(config)))
