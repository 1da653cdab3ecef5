/**
 * One model turn inside the loop: stream it, forward what a person should
 * see, and keep what the loop needs to decide the next step.
 *
 * @module
 */
import { Clock, Effect, Schema, Stream } from "effect"
import type { AgentEvent } from "../../domain/AgentEvent.js"
import type { ChatModelError, ModelError } from "../../domain/errors.js"
import { type FinishReason, ModelEvent, type Usage } from "../../domain/ModelEvent.js"
import type { ToolCall } from "../../domain/ToolCall.js"
import type { ChatRequest, ModelInfo, Service as ChatModelService } from "../../services/ChatModel.js"
import { turnSpanOptions } from "../tracing/spannedStream.js"
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
 * Streams one model turn, emitting what is visible, and summarizes it. A
 * stream cut before any answer text or tool call is a summary with `cut`,
 * not a failure: nothing but reasoning is lost by asking again. The turn is
 * the `ChatModel.stream` span.
 */
export const runModelTurn = (
  model: ChatModelService,
  info: ModelInfo,
  request: ChatRequest,
  emit: (event: AgentEvent) => Effect.Effect<void>
): Effect.Effect<TurnSummary, ChatModelError> =>
  Effect.flatMap(Clock.currentTimeMillis, (startedAt) => {
    // This turn's own fold, and whether anything arrived, read when the stream breaks.
    let sofar = empty
    let started = false
    const events: Array<ModelEvent> = []
    const finished = Effect.suspend(() =>
      Effect.zipRight(
        Effect.annotateCurrentSpan(responseAttributes(sofar, events)),
        Effect.flatMap(Clock.currentTimeMillis, (now) => recordModelTurn(info, (now - startedAt) / 1000, lastUsage(events)))
      )
    )
    return Stream.runForEach(model.stream(request), (event) => {
      started = true
      events.push(event)
      sofar = fold(sofar, event)
      const shown = visible(event)
      return shown === undefined ? Effect.void : emit(shown)
    }).pipe(
      Effect.map(() => sofar),
      Effect.catchIf((error) => cutBeforeAnswer(sofar, started, error), (error) => Effect.succeed({ ...sofar, cut: error })),
      Effect.ensuring(finished)
    )
  }).pipe(Effect.withSpan("ChatModel.stream", { ...turnSpanOptions, kind: "client", attributes: requestAttributes(info, request) }))
