/**
 * One model turn inside the loop: stream it, forward what a person should
 * see, and keep what the loop needs to decide the next step.
 *
 * @module
 */
import { Effect, Stream } from "effect"
import type { AgentEvent } from "../../domain/AgentEvent.js"
import type { ChatModelError } from "../../domain/errors.js"
import type { FinishReason, ModelEvent } from "../../domain/ModelEvent.js"
import type { ToolCall } from "../../domain/ToolCall.js"
import type { ChatRequest, Service as ChatModelService } from "../../services/ChatModel.js"

/** What a finished model turn produced. */
export interface TurnSummary {
  readonly text: string
  readonly reasoning: string
  readonly toolCalls: ReadonlyArray<ToolCall>
  readonly finishReason: FinishReason
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

/** Streams one model turn, emitting what is visible, and summarizes it. */
export const runModelTurn = (
  model: ChatModelService,
  request: ChatRequest,
  emit: (event: AgentEvent) => Effect.Effect<void>
): Effect.Effect<TurnSummary, ChatModelError> =>
  Stream.runFoldEffect(model.stream(request), empty, (turn, event) => {
    const shown = visible(event)
    return shown === undefined ? Effect.succeed(fold(turn, event)) : Effect.as(emit(shown), fold(turn, event))
  })
