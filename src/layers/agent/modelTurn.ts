/**
 * One model turn inside the loop: stream it, forward what a person should
 * see, and keep what the loop needs to decide the next step.
 *
 * @module
 */
import { Effect, Stream } from "effect"
import type { AgentEvent } from "../../domain/AgentEvent.js"
import type { ChatModelError, ModelError } from "../../domain/errors.js"
import type { FinishReason, ModelEvent } from "../../domain/ModelEvent.js"
import type { ToolCall } from "../../domain/ToolCall.js"
import type { ChatRequest, Service as ChatModelService } from "../../services/ChatModel.js"

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

/**
 * Streams one model turn, emitting what is visible, and summarizes it. A
 * stream cut before any answer text or tool call is a summary with `cut`,
 * not a failure: nothing but reasoning is lost by asking again.
 */
export const runModelTurn = (
  model: ChatModelService,
  request: ChatRequest,
  emit: (event: AgentEvent) => Effect.Effect<void>
): Effect.Effect<TurnSummary, ChatModelError> =>
  Effect.suspend(() => {
    // This turn's own fold, and whether anything arrived, read when the stream breaks.
    let sofar = empty
    let started = false
    return Stream.runForEach(model.stream(request), (event) => {
      started = true
      sofar = fold(sofar, event)
      const shown = visible(event)
      return shown === undefined ? Effect.void : emit(shown)
    }).pipe(
      Effect.map(() => sofar),
      Effect.catchIf((error) => cutBeforeAnswer(sofar, started, error), (error) => Effect.succeed({ ...sofar, cut: error }))
    )
  })
