/**
 * `POST /v1/embeddings`: OpenAI's embeddings over the served model's
 * `Embedder`, one vector per input, as floats or base64. A model without
 * embeddings (a scripted one, in tests and library use) answers 404.
 *
 * @module
 */
import { HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { EmbeddingList, EmbeddingsRequest, vectorToBase64 } from "../../domain/openai/Embeddings.js"
import type { Embedder } from "../../services/Embedder.js"
import type { Admission } from "./admission.js"
import { type ApiError, badRequest, internal, notFound, toResponse } from "./ApiError.js"
import { type BodyLimits, decodeRequestBody, readJsonBody } from "./jsonBody.js"

/** What the route needs. */
export interface EmbeddingsContext {
  readonly embedder: Option.Option<Embedder["Type"]>
  readonly modelId: string
  readonly limits: BodyLimits
  readonly admission: Admission
}

const serve = (context: EmbeddingsContext) =>
  Effect.gen(function*() {
    const body = yield* decodeRequestBody(EmbeddingsRequest, yield* readJsonBody(context.limits))
    if (Option.isNone(context.embedder)) {
      return yield* Effect.fail(notFound("this server's model offers no embeddings", "embeddings_not_supported"))
    }
    const texts = typeof body.input === "string" ? [body.input] : body.input
    // The model reads texts one at a time, as it reads prompts: one slot of the same admission.
    yield* context.admission.enter
    const { tokens, vectors } = yield* context.embedder.value.embed(texts).pipe(
      Effect.mapError((error): ApiError =>
        error.reason === "InvalidRequest" ? badRequest(error.detail ?? error.message, "input") : internal(error.message)
      )
    )
    const base64 = body.encoding_format === "base64"
    const list: EmbeddingList = {
      object: "list",
      data: vectors.map((vector, index) => ({ object: "embedding", index, embedding: base64 ? vectorToBase64(vector) : vector })),
      model: context.modelId,
      usage: { prompt_tokens: tokens, total_tokens: tokens }
    }
    return HttpServerResponse.unsafeJson(list)
  })

/** The route's handler. */
export const embeddings = (context: EmbeddingsContext) =>
  Effect.scoped(serve(context)).pipe(Effect.catchTag("ApiError", (error) => Effect.succeed(toResponse(error))))
