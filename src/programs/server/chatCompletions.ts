/**
 * `POST /v1/chat/completions`, the "server as competitor" way:
 *
 * | the request brings | the server does |
 * |---|---|
 * | a system message | uses the last one; else composes its own |
 * | `tools` | one model pass; tool calls go back to the client (`finish_reason: tool_calls`) |
 * | no `tools` | runs its own toolbelt through the agent loop, server-side |
 * | sampling fields | applies them to this request; else the current preset |
 *
 * The AUTHORITATIVE preamble is appended to the system prompt that reaches
 * the model, and a clock note to each user message (the newest's is now), unless
 * `X-Easyai-Inject: off` says otherwise. The system prompt carries no time,
 * so it is byte-identical across the requests of a conversation and the
 * engine reuses the KV cache of every earlier turn.
 *
 * Streams start only once the first event is ready, so a failure before
 * any output (an oversized prompt, a model that cannot start) is a proper
 * HTTP status; a failure after it is an error chunk before `[DONE]`.
 *
 * @module
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Clock, Effect, Either, Option, Ref, type Scope, Stream } from "effect"
import type { ChatModelError } from "../../domain/errors.js"
import { type ChatMessage, SystemMessage } from "../../domain/Message.js"
import { type PresetName, resolveSampling, type SamplingOverrides, type SamplingParams } from "../../domain/Sampling.js"
import { joinBlocks, type PreambleOptions } from "../../domain/SystemPrompt.js"
import type { Agent } from "../../services/Agent.js"
import type { ChatModel } from "../../services/ChatModel.js"
import type { Preamble } from "../../services/Preamble.js"
import type { ToolRegistry } from "../../services/ToolRegistry.js"
import { ApiError, badRequest, notFound, toResponse } from "./ApiError.js"
import type { Admission } from "./admission.js"
import { type ChatCall, parseChatCall } from "./chatRequest.js"
import { CompletionBuilder } from "./completionBody.js"
import { type BodyLimits, readJsonBody } from "./jsonBody.js"
import type { ServerMetrics } from "./metrics.js"
import { SseEncoder } from "./sseEncoder.js"
import { newIdentity, type TurnEvent, type TurnTally } from "./turnEvents.js"

/** What the route works with, resolved when the app is built. */
export interface ChatContext {
  readonly model: ChatModel["Type"]
  readonly agent: Agent["Type"]
  readonly registry: ToolRegistry["Type"]
  readonly preamble: Preamble["Type"]
  readonly admission: Admission
  readonly metrics: ServerMetrics
  readonly preset: Ref.Ref<PresetName>
  /** The operator's shapers, under each request's own. */
  readonly sampling: SamplingOverrides
  /** The operator's `max_tokens`, for requests that set none. */
  readonly maxTokens: number | undefined
  readonly limits: BodyLimits
  /** The id responses carry. */
  readonly modelId: string
  /** Every model name a request may ask for. */
  readonly servedNames: ReadonlySet<string>
  readonly system: string
  readonly systemAppend: ReadonlyArray<string>
  readonly injectPreamble: boolean
}

/** What gets a request that no longer fits the context through, for the client and the operator. */
const overflowHint =
  "send a shorter conversation (in easyai's chat: /compress), or start the server with a larger --ctx or with --no-tools"

/** The failure of a model as the client sees it. */
export const apiErrorOf = (error: ChatModelError): ApiError => {
  if (error._tag === "ContextOverflow") {
    return new ApiError({
      status: 400,
      type: "exceed_context_size_error",
      code: "context_length_exceeded",
      detail: `${error.message}: ${overflowHint}`,
      extra: { n_prompt_tokens: error.promptTokens, n_ctx: error.contextSize }
    })
  }
  switch (error.reason) {
    case "RateLimited":
      return new ApiError({ status: 429, type: "rate_limit_error", detail: error.message })
    case "InvalidRequest":
      return badRequest(error.detail ?? error.message, "tools")
    default:
      return new ApiError({ status: 500, type: "server_error", detail: `the model failed: ${error.message}` })
  }
}

/** A model failure, logged for the operator (a context overflow or a bad request is the client's to fix, and is not). */
const reported = (error: ChatModelError): Effect.Effect<ApiError> =>
  error._tag === "ContextOverflow" || error.reason === "InvalidRequest"
    ? Effect.succeed(apiErrorOf(error))
    : Effect.as(Effect.logWarning(`generation failed: ${error.message}`), apiErrorOf(error))

/** Whether a request gets the preamble and the clock note, and with which overrides. */
interface Injection {
  readonly on: boolean
  readonly overrides: Partial<PreambleOptions>
}

/** The preamble overrides for a request: `X-Easyai-Inject` first, then the server's setting. */
const injection = (header: string | undefined, serverDefault: boolean): Either.Either<Injection, ApiError> => {
  const value = header?.trim().toLowerCase()
  if (value !== undefined && value !== "on" && value !== "off") {
    return Either.left(badRequest(`X-Easyai-Inject must be "on" or "off" (got ${JSON.stringify(header)})`, "X-Easyai-Inject"))
  }
  const on = value === undefined ? serverDefault : value === "on"
  const overrides: Partial<PreambleOptions> = on
    ? (value === "on" ? { injectDateTime: true, memoryVocabulary: true } : {})
    : { injectDateTime: false, memoryVocabulary: false }
  return Either.right({ on, overrides })
}

/** Composition options that leave every preamble block out, for a prompt the preamble is appended to. */
const noPreamble: Partial<PreambleOptions> = {
  injectDateTime: false,
  memoryVocabulary: false,
  knowledgeLoop: false,
  citeSources: false
}

/**
 * The system prompt that reaches the model: the client's, or the server's
 * composed for this request's tools; then the preamble, which names no
 * time (the clock goes on the user messages, see {@link conversation}).
 */
const systemPrompt = (context: ChatContext, call: ChatCall, inject: Injection) =>
  Effect.gen(function*() {
    if (call.system !== undefined && !inject.on) return call.system
    const base = call.system ?? (yield* context.preamble.compose({
      base: context.system,
      tools: call.clientTools ?? (yield* context.registry.specs),
      appends: context.systemAppend,
      toolsCatalogue: true,
      preamble: noPreamble
    }))
    return joinBlocks([base, yield* context.preamble.build(inject.overrides)])
  })

/** The conversation the model sees: the system prompt, then the client's messages, the newest user one stamped with the time when injecting. */
const conversation = (context: ChatContext, call: ChatCall, system: string, inject: Injection) => {
  const messages = [new SystemMessage({ content: system }), ...call.messages]
  return inject.on ? context.preamble.stamp(messages, inject.overrides) : Effect.succeed(messages)
}

/** The events of the turn: one model pass with the client's tools, else the agent loop with the server's. */
const turnEvents = (
  context: ChatContext,
  call: ChatCall,
  messages: ReadonlyArray<ChatMessage>,
  sampling: SamplingParams
): Stream.Stream<TurnEvent, ChatModelError> => {
  const maxTokens = call.maxTokens ?? context.maxTokens
  const shared = {
    messages,
    ...(call.toolChoice === undefined ? {} : { toolChoice: call.toolChoice }),
    ...(maxTokens === undefined ? {} : { maxTokens }),
    ...(call.stop === undefined ? {} : { stop: call.stop })
  }
  return call.clientTools !== undefined
    ? context.model.stream({ ...shared, tools: call.clientTools, sampling })
    : context.agent.run({ ...shared, sampling }).pipe(
      Stream.tap((event) => (event._tag === "ToolCallFinished" ? context.metrics.toolCall : Effect.void))
    )
}

const record = (metrics: ServerMetrics, tally: TurnTally) =>
  tally.sawUsage
    ? metrics.generation({
      promptTokens: tally.promptTokens,
      completionTokens: tally.completionTokens,
      tokensPerSecond: tally.tokensPerSecond
    })
    : Effect.void

const sseHeaders = { "cache-control": "no-cache", "x-accel-buffering": "no", connection: "keep-alive" }

const streamed = (context: ChatContext, call: ChatCall, events: Stream.Stream<TurnEvent, ChatModelError>) =>
  Effect.gen(function*() {
    const encoder = new SseEncoder(newIdentity(context.modelId, yield* Clock.currentTimeMillis), call.streamOptions)
    // Pull the first events before answering so an early failure is still a status. The rest
    // is pulled from the same puller, which lives as long as the response (the request's scope).
    const pull = yield* Stream.toPull(events)
    const first = yield* pull.pipe(
      Effect.map(Option.some),
      Effect.catchAll(Option.match({ onNone: () => Effect.succeed(Option.none()), onSome: (error) => Effect.flip(reported(error)) }))
    )
    const all = Option.match(first, {
      onNone: () => Stream.empty,
      onSome: (chunk) => Stream.concat(Stream.fromChunk(chunk), Stream.repeatEffectChunkOption(pull))
    })
    const frames = Stream.make(encoder.start()).pipe(
      Stream.concat(Stream.map(all, (event) => encoder.event(event))),
      Stream.concat(Stream.sync(() => encoder.finish())),
      Stream.catchAll((error) =>
        Stream.fromEffect(Effect.zipRight(context.metrics.failure, Effect.map(reported(error), (failure) => encoder.fail(failure))))
      ),
      Stream.filter((text) => text !== ""),
      Stream.encodeText,
      Stream.ensuring(Effect.suspend(() => record(context.metrics, encoder.totals)))
    )
    return HttpServerResponse.stream(frames, { contentType: "text/event-stream", headers: sseHeaders })
  })

const whole = (context: ChatContext, events: Stream.Stream<TurnEvent, ChatModelError>) =>
  Effect.gen(function*() {
    const builder = new CompletionBuilder()
    yield* Stream.runForEach(events, (event) => Effect.sync(() => builder.add(event))).pipe(
      Effect.catchAll((error) => Effect.flip(reported(error))),
      Effect.ensuring(Effect.suspend(() => record(context.metrics, builder.tally)))
    )
    return HttpServerResponse.unsafeJson(builder.build(newIdentity(context.modelId, yield* Clock.currentTimeMillis)))
  })

const serve = (context: ChatContext): Effect.Effect<HttpServerResponse.HttpServerResponse, ApiError, HttpServerRequest.HttpServerRequest | Scope.Scope> =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const call = yield* parseChatCall(yield* readJsonBody(context.limits))
    if (call.model !== undefined && call.model !== "" && !context.servedNames.has(call.model)) {
      return yield* notFound(`the model "${call.model}" does not exist; this server serves "${context.modelId}"`, "model_not_found")
    }
    const inject = yield* injection(request.headers["x-easyai-inject"], context.injectPreamble)
    const sampling = resolveSampling(call.preset ?? (yield* Ref.get(context.preset)), { ...context.sampling, ...call.sampling })
    const messages = yield* conversation(context, call, yield* systemPrompt(context, call, inject), inject)
    yield* context.admission.enter
    const events = turnEvents(context, call, messages, sampling)
    return call.stream ? yield* streamed(context, call, events) : yield* whole(context, events)
  })

/** The route's handler. */
export const chatCompletions = (context: ChatContext) =>
  serve(context).pipe(Effect.catchTag("ApiError", (error) => Effect.succeed(toResponse(error))))
