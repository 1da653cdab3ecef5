/**
 * `Embedder` on the loaded model: node-llama-cpp's embedding context, made
 * on the first request (it takes memory of its own) and released with the
 * Layer. One text is read at a time.
 *
 * @module
 */
import { Effect, Layer } from "effect"
import type { LlamaEmbeddingContext } from "node-llama-cpp"
import { ModelError } from "../../domain/errors.js"
import { Embedder } from "../../services/Embedder.js"
import { Engine } from "../../services/Engine.js"
import { errorText } from "../../domain/errorText.js"

const failure = (error: unknown): ModelError => {
  const detail = errorText(error)
  // node-llama-cpp refuses a text longer than the embedding context with this wording.
  return detail.includes("longer than the usable context")
    ? new ModelError({ reason: "InvalidRequest", detail: `a text is too long to embed: ${detail}`, cause: error })
    : new ModelError({ reason: "BadResponse", detail: `embedding failed: ${detail}`, cause: error })
}

/** `Embedder` on the `Engine` in context. */
export const layer: Layer.Layer<Embedder, never, Engine> = Layer.scoped(
  Embedder,
  Effect.gen(function*() {
    const { model } = (yield* Engine).native
    let created: LlamaEmbeddingContext | undefined
    yield* Effect.addFinalizer(() => Effect.promise(async () => created?.dispose()))
    const context = yield* Effect.cached(Effect.tryPromise({
      try: async () => {
        created = await model.createEmbeddingContext()
        return created
      },
      catch: failure
    }))
    const oneAtATime = yield* Effect.makeSemaphore(1)
    const embedOne = (embedding: LlamaEmbeddingContext, text: string) =>
      Effect.tryPromise({ try: () => embedding.getEmbeddingFor(text), catch: failure }).pipe(
        Effect.map((vector) => ({ vector: vector.vector, tokens: embedding.calculateInputLength(text) })),
        oneAtATime.withPermits(1)
      )
    return {
      embed: (texts) =>
        Effect.flatMap(context, (embedding) => Effect.forEach(texts, (text) => embedOne(embedding, text))).pipe(
          Effect.map((read) => ({ vectors: read.map((one) => one.vector), tokens: read.reduce((sum, one) => sum + one.tokens, 0) })),
          Effect.withSpan("Embedder.embed", { attributes: { "gen_ai.operation.name": "embeddings", "easyai.embed.texts": texts.length } })
        )
    }
  })
)
