/**
 * `POST /v1/embeddings` and Ollama's `POST /api/embed`: the served model's
 * `Embedder`, one vector per input (OpenAI's as floats or base64), each
 * protocol a decoder and an encoder around one call. A model without
 * embeddings (a scripted one, in tests and library use) answers 404.
 *
 * @module
 */
import { HttpServerResponse } from "@effect/platform"
import { Clock, Effect, Option } from "effect"
import { OllamaEmbedRequest, type OllamaEmbedResponse } from "../../domain/ollama/Embed.js"
import { type EmbeddingList, EmbeddingsRequest, inputTexts, vectorToBase64 } from "../../domain/openai/Embeddings.js"
import type { Embedder } from "../../services/Embedder.js"
import type { Admission } from "./admission.js"
import { type ApiError, badRequest, internal, notFound, toResponse } from "./ApiError.js"
import { type BodyLimits, decodeRequestBody, readJsonBody } from "./jsonBody.js"
import { ollamaError } from "./ollamaChat.js"

/** What the route needs. */
export interface EmbeddingsContext {
  readonly embedder: Option.Option<Embedder["Type"]>
  readonly modelId: string
  readonly limits: BodyLimits
  readonly admission: Admission
}

/** The vectors of `texts` on the served model, under one slot of the admission; the model's refusal is a 400 on `input`. */
const embedTexts = (context: EmbeddingsContext, texts: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    if (Option.isNone(context.embedder)) {
      return yield* Effect.fail(notFound("this server's model offers no embeddings", "embeddings_not_supported"))
    }
    // The model reads texts one at a time, as it reads prompts: one slot of the same admission.
    yield* context.admission.enter
    return yield* context.embedder.value.embed(texts).pipe(
      Effect.mapError((error): ApiError =>
        error.reason === "InvalidRequest" ? badRequest(error.detail ?? error.message, "input") : internal(error.message)
      )
    )
  })

const openAi = (context: EmbeddingsContext) =>
  Effect.gen(function*() {
    const body = yield* decodeRequestBody(EmbeddingsRequest, yield* readJsonBody(context.limits))
    const { tokens, vectors } = yield* embedTexts(context, inputTexts(body.input))
    const base64 = body.encoding_format === "base64"
    const list: EmbeddingList = {
      object: "list",
      data: vectors.map((vector, index) => ({ object: "embedding", index, embedding: base64 ? vectorToBase64(vector) : vector })),
      model: context.modelId,
      usage: { prompt_tokens: tokens, total_tokens: tokens }
    }
    return HttpServerResponse.unsafeJson(list)
  })

const ollama = (context: EmbeddingsContext) =>
  Effect.gen(function*() {
    const startedAt = yield* Clock.currentTimeNanos
    const body = yield* decodeRequestBody(OllamaEmbedRequest, yield* readJsonBody(context.limits))
    const { tokens, vectors } = yield* embedTexts(context, inputTexts(body.input))
    const answer: OllamaEmbedResponse = {
      model: body.model ?? context.modelId,
      embeddings: vectors,
      total_duration: Number((yield* Clock.currentTimeNanos) - startedAt),
      load_duration: 0, // the model is loaded once, before the server listens
      prompt_eval_count: tokens
    }
    return HttpServerResponse.unsafeJson(answer)
  })

/** `POST /v1/embeddings`. */
export const embeddings = (context: EmbeddingsContext) =>
  Effect.scoped(openAi(context)).pipe(Effect.catchTag("ApiError", (error) => Effect.succeed(toResponse(error))))

/** `POST /api/embed`: the same vectors in Ollama's shape, its failures as Ollama's `{"error": …}`. */
export const ollamaEmbed = (context: EmbeddingsContext) =>
  Effect.scoped(ollama(context)).pipe(Effect.catchTag("ApiError", (error) => Effect.succeed(ollamaError(error))))
