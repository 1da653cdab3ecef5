/**
 * `POST /v1/completions`: OpenAI's legacy prompt completion. The model
 * continues the prompt as is, with no chat template, system prompt or
 * tools, through the engine's `complete`; it shares the chat routes'
 * admission, metrics and stream pipeline. A served model without a local
 * engine (a remote or scripted one) answers 501.
 *
 * @module
 */
import { HttpServerResponse } from "@effect/platform"
import { Clock, Effect, Either, Option, Ref, type Stream } from "effect"
import type { ChatModelError } from "../../domain/errors.js"
import type { ModelEvent } from "../../domain/ModelEvent.js"
import { CompletionsRequest, type TextCompletion } from "../../domain/openai/Completions.js"
import { resolveSampling } from "../../domain/Sampling.js"
import type { Engine } from "../../services/Engine.js"
import { ApiError, badRequest, envelope, toResponse } from "./ApiError.js"
import { decodeRequestBody, readJsonBody } from "./jsonBody.js"
import { dataFrame, doneFrame } from "./sseEncoder.js"
import { newIdentity, type ResponseIdentity, TurnTally } from "./turnEvents.js"
import { type ChatContext, runWhole, sseHeaders, streamedResponse } from "./turnPipeline.js"

/** A completion as the route runs it. */
interface CompletionCall {
  readonly prompt: string
  readonly echo: boolean
  readonly stream: boolean
  readonly includeUsage: boolean
  readonly temperature?: number
  readonly topP?: number
  readonly maxTokens?: number
  readonly stop?: ReadonlyArray<string>
  readonly seed?: number
}

/** What the body asks that one local completion cannot give, as a 400 naming the field. */
const refusal = (body: CompletionsRequest): ApiError | undefined => {
  if (Array.isArray(body.prompt) && body.prompt.length !== 1) {
    return badRequest("prompt must be one string (or a list holding one string): this server completes one prompt per request", "prompt")
  }
  if (body.n !== undefined && body.n !== null && body.n !== 1) return badRequest("n must be 1: this server writes one completion per request", "n")
  if (body.best_of !== undefined && body.best_of !== null && body.best_of !== 1) {
    return badRequest("best_of must be 1: this server writes one completion per request", "best_of")
  }
  if (body.logprobs !== undefined && body.logprobs !== null && body.logprobs !== false && body.logprobs !== 0) {
    return badRequest("logprobs are not supported by this server: leave logprobs out", "logprobs")
  }
  if (body.suffix !== undefined && body.suffix !== null && body.suffix !== "") {
    return badRequest("suffix (insertion) is not supported by this server: leave suffix out", "suffix")
  }
  return undefined
}

/** Reads the body into a call, or says what is wrong with it (400). */
const parseCompletionCall = (json: unknown): Either.Either<CompletionCall, ApiError> =>
  Either.flatMap(decodeRequestBody(CompletionsRequest, json), (body) => {
    const refused = refusal(body)
    if (refused !== undefined) return Either.left(refused)
    const stop = body.stop ?? undefined
    return Either.right({
      prompt: typeof body.prompt === "string" ? body.prompt : body.prompt[0] ?? "",
      echo: body.echo ?? false,
      stream: body.stream ?? false,
      includeUsage: body.stream_options?.include_usage ?? false,
      ...(body.temperature === undefined || body.temperature === null ? {} : { temperature: body.temperature }),
      ...(body.top_p === undefined || body.top_p === null ? {} : { topP: body.top_p }),
      ...(body.max_tokens === undefined || body.max_tokens === null ? {} : { maxTokens: body.max_tokens }),
      ...(stop === undefined ? {} : { stop: typeof stop === "string" ? [stop] : stop }),
      ...(body.seed === undefined || body.seed === null ? {} : { seed: body.seed })
    })
  })

/** A completion's identity: OpenAI's ids of this object start `cmpl-`. */
const completionIdentity = (model: string, nowMillis: number): ResponseIdentity => {
  const identity = newIdentity(model, nowMillis)
  return { ...identity, id: identity.id.replace(/^chatcmpl-/, "cmpl-") }
}

/** The usage object of a completion. */
const usageOf = (tally: TurnTally): NonNullable<TextCompletion["usage"]> => ({
  prompt_tokens: tally.promptTokens,
  completion_tokens: tally.completionTokens,
  total_tokens: tally.promptTokens + tally.completionTokens
})

/** A response or chunk holding `text`. */
const textCompletion = (
  identity: ResponseIdentity,
  text: string,
  finishReason: "stop" | "length" | null,
  usage?: TextCompletion["usage"]
): TextCompletion => ({
  id: identity.id,
  object: "text_completion",
  created: identity.created,
  model: identity.model,
  choices: [{ text, index: 0, logprobs: null, finish_reason: finishReason }],
  ...(usage === undefined ? {} : { usage })
})

/** The SSE text of a streamed completion: a chunk per piece of text, the finish reason, the usage when asked, `[DONE]`. */
const streamed = (context: ChatContext, call: CompletionCall, events: Stream.Stream<ModelEvent, ChatModelError>) =>
  Effect.gen(function*() {
    const identity = completionIdentity(context.modelId, yield* Clock.currentTimeMillis)
    const tally = new TurnTally()
    return yield* streamedResponse(context, events, {
      start: () => (call.echo && call.prompt !== "" ? dataFrame(textCompletion(identity, call.prompt, null)) : ""),
      event: (event) => {
        tally.add(event)
        if (event._tag === "TextDelta") return dataFrame(textCompletion(identity, event.text, null))
        if (event._tag === "Finished") return dataFrame(textCompletion(identity, "", event.reason === "length" ? "length" : "stop"))
        return ""
      },
      finish: () =>
        (call.includeUsage
          ? dataFrame({ ...textCompletion(identity, "", null), choices: [], usage: usageOf(tally) })
          : "") + doneFrame,
      fail: (failure) => dataFrame(envelope(failure)) + doneFrame,
      tally: () => tally
    }, "text/event-stream", sseHeaders)
  })

/** A whole completion. */
const whole = (context: ChatContext, call: CompletionCall, events: Stream.Stream<ModelEvent, ChatModelError>) =>
  Effect.gen(function*() {
    const tally = new TurnTally()
    let text = call.echo ? call.prompt : ""
    yield* runWhole(context, events, (event) => {
      tally.add(event)
      if (event._tag === "TextDelta") text += event.text
    }, () => tally)
    const identity = completionIdentity(context.modelId, yield* Clock.currentTimeMillis)
    return HttpServerResponse.unsafeJson(textCompletion(identity, text, tally.finishReason === "length" ? "length" : "stop", usageOf(tally)))
  })

const serve = (context: ChatContext, engine: Option.Option<Engine["Type"]>) =>
  Effect.gen(function*() {
    const call = yield* parseCompletionCall(yield* readJsonBody(context.limits))
    if (Option.isNone(engine)) {
      return yield* new ApiError({
        status: 501,
        type: "not_implemented_error",
        code: "completions_not_supported",
        detail: "this server's model is not a local engine: prompt completion needs one; use /v1/chat/completions"
      })
    }
    const { temperature, topP } = call
    const sampling = resolveSampling(yield* Ref.get(context.preset), {
      ...context.sampling,
      ...(temperature === undefined ? {} : { temperature }),
      ...(topP === undefined ? {} : { topP })
    })
    const maxTokens = call.maxTokens ?? context.maxTokens
    yield* context.admission.enter
    const events = engine.value.complete({
      prompt: call.prompt,
      sampling,
      ...(maxTokens === undefined ? {} : { maxTokens }),
      ...(call.stop === undefined ? {} : { stop: call.stop }),
      ...(call.seed === undefined ? {} : { seed: call.seed })
    })
    return yield* (call.stream ? streamed(context, call, events) : whole(context, call, events))
  })

/** The route's handler; the generation lives in the request's scope, as long as its response. */
export const completions = (context: ChatContext, engine: Option.Option<Engine["Type"]>) =>
  serve(context, engine).pipe(
    Effect.catchTag("ApiError", (error) => Effect.succeed(toResponse(error)))
  )
