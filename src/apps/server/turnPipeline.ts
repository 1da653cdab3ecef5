/**
 * The turn every protocol's route shares: from a translated request (a
 * `ChatCall`, whatever the wire) to the events of the turn. It composes the
 * system prompt (the client's, or the server's for this request's tools,
 * then the AUTHORITATIVE preamble unless `X-Easyai-Inject: off`), stamps the
 * clock notes, takes a slot of the admission, and runs one model pass with
 * the client's tools or the agent loop with the server's. A route is then a
 * decoder into `ChatCall` and an encoder of `TurnEvent`s.
 *
 * Streams start only once the first event is ready ({@link afterFirstEvent}),
 * so a failure before any output (an oversized prompt, a model that cannot
 * start) is a proper HTTP status.
 *
 * @module
 */
import { HttpServerResponse } from "@effect/platform"
import { Chunk, Effect, Either, Option, Ref, type Scope, Stream } from "effect"
import type { ChatModelError } from "../../domain/errors.js"
import { type ChatMessage, SystemMessage } from "../../domain/Message.js"
import { type PresetName, resolveSampling, type SamplingOverrides, type SamplingParams } from "../../domain/Sampling.js"
import { joinBlocks, type PreambleOptions } from "../../domain/SystemPrompt.js"
import type { Agent } from "../../services/Agent.js"
import type { ChatModel } from "../../services/ChatModel.js"
import type { Preamble } from "../../services/Preamble.js"
import type { ToolRegistry } from "../../services/ToolRegistry.js"
import { ApiError, badRequest } from "./ApiError.js"
import type { Admission } from "./admission.js"
import type { ChatCall } from "./chatRequest.js"
import type { BodyLimits } from "./jsonBody.js"
import type { ServerMetrics } from "./metrics.js"
import type { TurnEvent, TurnTally } from "./turnEvents.js"

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
      return badRequest(error.detail ?? error.message, error.field === "responseFormat" ? "response_format" : "tools")
    default:
      return new ApiError({ status: 500, type: "server_error", detail: `the model failed: ${error.message}` })
  }
}

/** A model failure, logged for the operator (a context overflow or a bad request is the client's to fix, and is not). */
export const reported = (error: ChatModelError): Effect.Effect<ApiError> =>
  error._tag === "ContextOverflow" || error.reason === "InvalidRequest"
    ? Effect.succeed(apiErrorOf(error))
    : Effect.as(Effect.logWarning(`generation failed: ${error.message}`), apiErrorOf(error))

/** Whether a request gets the preamble and the clock note, and with which overrides. */
interface Injection {
  readonly on: boolean
  readonly overrides: Partial<PreambleOptions>
}

/** An `on`/`off` header (any case); `undefined` when absent. */
export const onOffHeader = (name: string, header: string | undefined): Either.Either<boolean | undefined, ApiError> => {
  const value = header?.trim().toLowerCase()
  if (value === undefined) return Either.right(undefined)
  if (value === "on" || value === "off") return Either.right(value === "on")
  return Either.left(badRequest(`${name} must be "on" or "off" (got ${JSON.stringify(header)})`, name))
}

/** The preamble overrides for a request: `X-Easyai-Inject` first, then the server's setting. */
const injection = (header: string | undefined, serverDefault: boolean): Either.Either<Injection, ApiError> =>
  Either.map(onOffHeader("X-Easyai-Inject", header), (asked) => {
    const on = asked ?? serverDefault
    const overrides: Partial<PreambleOptions> = on
      ? (asked === true ? { injectDateTime: true, memoryVocabulary: true } : {})
      : { injectDateTime: false, memoryVocabulary: false }
    return { on, overrides }
  })

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
    const tools = call.clientTools ?? (yield* context.registry.specs)
    const base = call.system ?? (yield* context.preamble.compose({
      base: context.system,
      tools,
      appends: context.systemAppend,
      toolsCatalogue: true,
      preamble: noPreamble
    }))
    return joinBlocks([base, yield* context.preamble.build(inject.overrides, tools.map((spec) => spec.name))])
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
    ...(call.stop === undefined ? {} : { stop: call.stop }),
    ...(call.responseFormat === undefined ? {} : { responseFormat: call.responseFormat })
  }
  return call.clientTools !== undefined
    ? context.model.stream({ ...shared, tools: call.clientTools, sampling })
    : context.agent.run({ ...shared, sampling }).pipe(
      Stream.tap((event) => (event._tag === "ToolCallFinished" ? context.metrics.toolCall : Effect.void))
    )
}

/** Adds a finished turn's tokens and speed to the metrics. */
export const record = (metrics: ServerMetrics, tally: TurnTally) =>
  tally.sawUsage
    ? metrics.generation({
      promptTokens: tally.promptTokens,
      completionTokens: tally.completionTokens,
      tokensPerSecond: tally.tokensPerSecond,
      promptTokensPerSecond: tally.promptTokensPerSecond,
      contextUsed: tally.contextUsed,
      contextSize: tally.contextSize
    })
    : Effect.void

/**
 * The events of a translated request: the system prompt, the clock notes,
 * the sampling, a slot of the admission (held for the request's scope),
 * then the turn. `injectHeader` is the request's `X-Easyai-Inject`.
 */
export const startTurn = (
  context: ChatContext,
  call: ChatCall,
  injectHeader: string | undefined
): Effect.Effect<Stream.Stream<TurnEvent, ChatModelError>, ApiError, Scope.Scope> =>
  Effect.gen(function*() {
    const inject = yield* injection(injectHeader, context.injectPreamble)
    const sampling = resolveSampling(call.preset ?? (yield* Ref.get(context.preset)), { ...context.sampling, ...call.sampling })
    const messages = yield* conversation(context, call, yield* systemPrompt(context, call, inject), inject)
    yield* context.admission.enter
    return turnEvents(context, call, messages, sampling)
  })

/**
 * Pulls the first events before a response is started, so a failure before
 * any output is still a status; the stream then replays them and pulls the
 * rest from the same puller, which lives as long as the response (the
 * request's scope).
 */
export const afterFirstEvent = (
  events: Stream.Stream<TurnEvent, ChatModelError>
): Effect.Effect<Stream.Stream<TurnEvent, ChatModelError>, ApiError, Scope.Scope> =>
  Effect.gen(function*() {
    const pull = yield* Stream.toPull(events)
    const first = yield* pull.pipe(
      Effect.map(Option.some),
      Effect.catchAll(Option.match({ onNone: () => Effect.succeed(Option.none()), onSome: (error) => Effect.flip(reported(error)) }))
    )
    return Option.match(first, {
      onNone: () => Stream.empty,
      onSome: (chunk) => Stream.concat(Stream.fromChunk(chunk), Stream.repeatEffectChunkOption(pull))
    })
  })

/** Runs a whole (unstreamed) turn, folding each event into `add`; a failure is the client's status. */
export const runWhole = (
  context: ChatContext,
  events: Stream.Stream<TurnEvent, ChatModelError>,
  add: (event: TurnEvent) => void,
  tally: () => TurnTally
): Effect.Effect<void, ApiError> =>
  Stream.runForEach(events, (event) => Effect.sync(() => add(event))).pipe(
    Effect.catchAll((error) => Effect.flip(reported(error))),
    Effect.ensuring(Effect.suspend(() => record(context.metrics, tally())))
  )

/** The headers of a server-sent-events response: no caching, no proxy buffering. */
export const sseHeaders = { "cache-control": "no-cache", "x-accel-buffering": "no", connection: "keep-alive" }

/** A protocol's stream encoder: the text of its opening, of each event, of its end, and of a failure mid-stream. */
export interface StreamEncoder {
  readonly start: () => string
  readonly event: (event: TurnEvent) => string
  readonly finish: () => string
  readonly fail: (error: ApiError) => string
  /** The turn's tally so far, for the metrics. */
  readonly tally: () => TurnTally
}

/**
 * A streamed response of the turn's events as `encoder` writes them: begun
 * once the first event is ready ({@link afterFirstEvent}), a failure after
 * that written by the encoder, the turn's figures recorded at its end.
 */
export const streamedResponse = (
  context: ChatContext,
  events: Stream.Stream<TurnEvent, ChatModelError>,
  encoder: StreamEncoder,
  contentType: string,
  headers: Record<string, string> = {}
): Effect.Effect<HttpServerResponse.HttpServerResponse, ApiError, Scope.Scope> =>
  Effect.map(afterFirstEvent(events), (all) => {
    // A chunk of events is one stage and one write: its frames joined, then encoded once.
    const frame = (text: () => string) => Stream.suspend(() => Stream.fromChunk(bytes(Chunk.of(text()))))
    const frames = frame(encoder.start).pipe(
      Stream.concat(Stream.mapChunks(all, (chunk) => bytes(Chunk.map(chunk, encoder.event)))),
      Stream.concat(frame(encoder.finish)),
      Stream.catchAll((error) =>
        Stream.unwrap(
          Effect.zipRight(context.metrics.failure, Effect.map(reported(error), (failure) => frame(() => encoder.fail(failure))))
        )
      ),
      Stream.ensuring(Effect.suspend(() => record(context.metrics, encoder.tally())))
    )
    return HttpServerResponse.stream(frames, { contentType, headers })
  })

const utf8 = new TextEncoder()

/** Frames as the bytes of one write; none when they are all empty (an event the protocol does not show). */
const bytes = (frames: Chunk.Chunk<string>): Chunk.Chunk<Uint8Array> => {
  const text = Chunk.join(frames, "")
  return text === "" ? Chunk.empty() : Chunk.of(utf8.encode(text))
}
