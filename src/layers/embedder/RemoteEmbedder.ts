/**
 * `Embedder` on the `Client` in context: the server's `/v1/embeddings`.
 *
 * @module
 */
import { Effect, Layer } from "effect"
import { ModelError } from "../../domain/errors.js"
import { Client } from "../../services/Client.js"
import { Embedder } from "../../services/Embedder.js"

/** `Embedder` on the `Client` in context. */
export const layer: Layer.Layer<Embedder, never, Client> = Layer.effect(
  Embedder,
  Effect.map(Client, (client) => ({
    embed: (texts) =>
      Effect.mapError(
        client.embeddings(texts),
        (error) => new ModelError({ reason: "Unavailable", detail: `embedding failed: ${error.message}`, cause: error })
      )
  }))
)
