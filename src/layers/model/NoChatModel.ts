/**
 * The `ChatModel` of a program started without a model: everything that does
 * not need one (rendering the system prompt, listing tools) works, and asking
 * it anything fails with a clear, typed error.
 *
 * @module
 */
import { Effect, Layer, Stream } from "effect"
import { ModelError } from "../../domain/errors.js"
import { ChatModel } from "../../services/ChatModel.js"

/** A model that is not there. `hint` tells the user how to configure one. */
export const layer = (hint: string): Layer.Layer<ChatModel> =>
  Layer.succeed(ChatModel, {
    info: Effect.succeed({ name: "none", backend: "none" }),
    stream: () => Stream.fail(new ModelError({ reason: "Unavailable", detail: `no model is configured: ${hint}` }))
  })
