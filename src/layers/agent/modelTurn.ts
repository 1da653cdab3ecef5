/**
 * One model turn inside the loop: stream it, forward what a person should
 * see, and keep what the loop needs to decide the next step.
 *
 * @module
 */
import { Cause, Channel, Chunk, Clock, Effect, ExecutionStrategy, Exit, Option, Schema, Scope, Stream, type Tracer } from "effect"
import type { AgentEvent } from "../../domain/AgentEvent.js"
import type { ChatModelError, ModelError } from "../../domain/errors.js"
import { type FinishReason, ModelEvent, type Usage } from "../../domain/ModelEvent.js"
import type { ToolCall } from "../../domain/ToolCall.js"
import type { ChatRequest, ModelInfo, Service as ChatModelService } from "../../services/ChatModel.js"
import { scopedSpannedStream } from "../tracing/spannedStream.js"
import { recordModelTurn } from "./modelMetrics.js"

/** What a finished model turn produced. */
export interface TurnSummary {
  readonly text: string
  readonly reasoning: string
  readonly toolCalls: ReadonlyArray<ToolCall>
  readonly finishReason: FinishReason
  /**
   * The stream broke (a transport failure) before any answer text or tool
   * call arrived, perhaps after some reasoning: the loop may ask again.
   */
  readonly cut?: ModelError
}

const empty: TurnSummary = { text: "", reasoning: "", toolCalls: [], finishReason: "stop" }

const fold = (turn: TurnSummary, event: ModelEvent): TurnSummary => {
  switch (event._tag) {
    case "TextDelta":
      return { ...turn, text: turn.text + event.text }
    case "ReasoningDelta":
      return { ...turn, reasoning: turn.reasoning + event.text }
    case "ToolCallRequested":
      return { ...turn, toolCalls: [...turn.toolCalls, event.call] }
    case "Finished":
      return { ...turn, finishReason: event.reason }
    case "PromptProgress":
    case "Usage":
      return turn
  }
}

/** The model events a person sees as they happen; tool calls are shown when they run. */
const visible = (event: ModelEvent): AgentEvent | undefined => {
  switch (event._tag) {
    case "TextDelta":
    case "ReasoningDelta":
    case "PromptProgress":
    case "Usage":
      return event
    case "ToolCallRequested":
    case "Finished":
      return undefined
  }
}

/**
 * Whether `error` cut a stream that had started (some event arrived) but
 * shown no answer text and no tool call (reasoning or progress at most). A
 * failure before the stream started is the client's to retry, and it has.
 */
const cutBeforeAnswer = (turn: TurnSummary, started: boolean, error: ChatModelError): error is ModelError =>
  started && error._tag === "ModelError" && error.reason === "Transport" && turn.text === "" &&
  turn.toolCalls.length === 0

const encodeEvents = Schema.encodeSync(Schema.Array(ModelEvent))

/** The attributes a model turn's span opens with: what was asked. */
const requestAttributes = (info: ModelInfo, request: ChatRequest): Record<string, unknown> => ({
  "gen_ai.operation.name": "chat",
  "gen_ai.provider.name": info.backend,
  "gen_ai.request.model": info.name,
  "easyai.request.messages": request.messages.length,
  "easyai.request.tools": request.tools.length,
  "easyai.request.tool_choice": typeof request.toolChoice === "object" ? request.toolChoice.name : request.toolChoice ?? "auto",
  ...(request.maxTokens === undefined ? {} : { "gen_ai.request.max_tokens": request.maxTokens }),
  ...(request.sampling === undefined ? {} : { "gen_ai.request.temperature": request.sampling.temperature })
})

/**
 * The attributes a model turn's span closes with: what came back, and every
 * event in order (`easyai.response.events`, the `ModelEvent`s as JSON), from
 * which `easyai replay` rebuilds a scripted turn.
 */
const lastUsage = (events: ReadonlyArray<ModelEvent>): Usage | undefined => {
  for (let at = events.length - 1; at >= 0; at--) {
    const event = events[at]
    if (event?._tag === "Usage") return event
  }
  return undefined
}

const responseAttributes = (turn: TurnSummary, events: ReadonlyArray<ModelEvent>): Record<string, unknown> => {
  const usage = lastUsage(events)
  return {
    "gen_ai.response.finish_reasons": [turn.cut === undefined ? turn.finishReason : "error"],
    "easyai.response.tool_calls": turn.toolCalls.length,
    "easyai.response.text_chars": turn.text.length,
    "easyai.response.reasoning_chars": turn.reasoning.length,
    ...(usage === undefined ? {} : {
      "gen_ai.usage.input_tokens": usage.promptTokens,
      "gen_ai.usage.output_tokens": usage.completionTokens,
      ...(usage.cachedTokens === undefined ? {} : { "gen_ai.usage.cache_read.input_tokens": usage.cachedTokens })
    }),
    "easyai.response.events": JSON.stringify(encodeEvents(events))
  }
}

/**
 * The stream of `pull`'s chunks, ending where it fails with `None`. Unlike
 * `Stream.repeatEffectChunkOption`, which keeps only the first failure, a
 * failure that comes with others (a clean-up that failed as well) is the
 * stream's whole.
 */
const pulled = <A, E>(pull: Effect.Effect<Chunk.Chunk<A>, Option.Option<E>>): Stream.Stream<A, E> => {
  const next: Channel.Channel<Chunk.Chunk<A>, unknown, E, unknown, void, unknown> = Channel.unwrap(
    Effect.matchCause(pull, {
      onFailure: (cause) => Option.match(Cause.flipCauseOption(cause), { onNone: () => Channel.void, onSome: Channel.failCause }),
      onSuccess: (chunk) => Channel.zipRight(Channel.write(chunk), next)
    })
  )
  return Stream.fromChannel(next)
}

/** One model turn: what a person sees of it, and what the loop keeps of it. */
export interface ModelTurn {
  /** The visible events, as the model sends them; the stream is the `ChatModel.stream` span. */
  readonly events: Stream.Stream<AgentEvent, ChatModelError>
  /** What the turn produced so far; the whole turn once `events` has ended. */
  readonly summary: () => TurnSummary
}

/**
 * One model turn, read by whoever reads the loop. A stream cut before any
 * answer text or tool call ends with a summary that has `cut`, instead of
 * failing: nothing but reasoning is lost by asking again.
 *
 * The turn's span is a child of `parent` (the hop's). The model's first
 * chunk is read while the span is current, so the spans its stream opens
 * when it starts (the engine's) are the turn's children.
 */
export const modelTurn = (
  model: ChatModelService,
  info: ModelInfo,
  request: ChatRequest,
  parent: Tracer.AnySpan
): ModelTurn => {
  let sofar = empty
  let started = false
  const events: Array<ModelEvent> = []
  const see = (chunk: Chunk.Chunk<ModelEvent>): Chunk.Chunk<AgentEvent> => {
    const shown: Array<AgentEvent> = []
    for (const event of chunk) {
      started = true
      events.push(event)
      sofar = fold(sofar, event)
      const visibleEvent = visible(event)
      if (visibleEvent !== undefined) shown.push(visibleEvent)
    }
    return Chunk.unsafeFromArray(shown)
  }
  const stream = scopedSpannedStream(
    "ChatModel.stream",
    { kind: "client", parent, attributes: requestAttributes(info, request) },
    (span) =>
      Effect.gen(function*() {
        const startedAt = yield* Clock.currentTimeMillis
        // Closed with the span's scope, before the span ends.
        yield* Effect.addFinalizer(() => {
          for (const [key, value] of Object.entries(responseAttributes(sofar, events))) span.attribute(key, value)
          return Effect.flatMap(Clock.currentTimeMillis, (now) => recordModelTurn(info, (now - startedAt) / 1000, lastUsage(events)))
        })
        // The model's stream gets a scope of its own, closed inside the read that finds its end or its failure:
        // a failure of its clean-up then travels with the turn, where a finalizer failing later would be lost.
        const modelScope = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.sequential)
        const pull = yield* Scope.extend(Stream.toPull(model.stream(request)), modelScope)
        const cut = (error: ModelError) =>
          Effect.suspend(() => {
            sofar = { ...sofar, cut: error }
            return Effect.fail(Option.none())
          })
        const step = Effect.catchAllCause(Effect.map(pull, see), (cause) => {
          const ended = Option.isNone(Cause.flipCauseOption(cause))
          return Effect.flatMap(Effect.exit(Scope.close(modelScope, ended ? Exit.void : Exit.failCause(cause))), (closed) => {
            const all = Exit.isSuccess(closed) ? cause : Cause.sequential(cause, closed.cause)
            const failure = Cause.isFailType(all) ? all.error : Option.none()
            return Option.isSome(failure) && cutBeforeAnswer(sofar, started, failure.value) ? cut(failure.value) : Effect.failCause(all)
          })
        })
        // Read here, while the span is current; handed on by the first pull of the stream.
        let first: Exit.Exit<Chunk.Chunk<AgentEvent>, Option.Option<ChatModelError>> | undefined = yield* Effect.exit(step)
        return pulled(Effect.suspend(() => {
          if (first === undefined) return step
          const read = first
          first = undefined
          return read
        }))
      })
  )
  return { events: stream, summary: () => sofar }
}
