/**
 * From wire chunks to model events. Text and reasoning pass straight
 * through; tool calls arrive as fragments keyed by `index` — possibly
 * interleaved and out of order, their `arguments` split across chunks — and
 * are emitted whole, in index order, when the turn finishes, followed by the
 * usage and the `Finished` event.
 *
 * @module
 */
import { Either } from "effect"
import { type ChatModelError, ModelError } from "../../domain/errors.js"
import { parseJson } from "../../domain/json.js"
import {
  type FinishReason,
  Finished,
  type ModelEvent,
  PromptProgress,
  ReasoningDelta,
  TextDelta,
  ToolCallRequested,
  Usage
} from "../../domain/ModelEvent.js"
import { newToolCallId, ToolCall } from "../../domain/ToolCall.js"
import { serverFailure } from "./failures.js"
import type { Completion, CompletionChunk, Timings, ToolCallDelta, WireUsage } from "../../domain/openai/ChatCompletions.js"

interface Pending {
  id: string | undefined
  name: string
  arguments: string
}

const usageEvent = (usage: WireUsage | null | undefined, timings: Timings | null | undefined): Usage | undefined => {
  if ((usage === null || usage === undefined) && (timings === null || timings === undefined)) return undefined
  const cached = usage?.prompt_tokens_details?.cached_tokens ?? timings?.cache_n ?? undefined
  const promptTokens = usage?.prompt_tokens ?? ((timings?.prompt_n ?? 0) + (timings?.cache_n ?? 0))
  const completionTokens = usage?.completion_tokens ?? timings?.predicted_n ?? 0
  const speed = timings?.predicted_per_second ?? undefined
  // easyai's server says how full its context is; other servers leave the size unknown.
  const contextSize = timings?.n_ctx ?? undefined
  return new Usage({
    promptTokens,
    completionTokens,
    contextUsed: timings?.n_ctx_used ?? promptTokens + completionTokens,
    ...(contextSize === undefined ? {} : { contextSize }),
    ...(cached === undefined ? {} : { cachedTokens: cached }),
    ...(speed === undefined ? {} : { tokensPerSecond: speed })
  })
}

/** A turn the token limit cut is `length`, whatever calls it holds: the server said so. */
const finishReason = (wire: string | undefined, calledTools: boolean): FinishReason =>
  wire === "length" ? "length" : calledTools ? "tool_calls" : "stop"

/**
 * The turn's calls in index order. In a turn the token limit cut (`wire`
 * is `length`), a call whose arguments are not whole JSON was cut too:
 * OpenAI sends it as far as it got, and it is dropped here — arguments that
 * do not parse are not a call to run.
 */
const callsOrError = (
  pending: ReadonlyArray<readonly [number, Pending]>,
  newId: () => string,
  wire: string | undefined
): Either.Either<ReadonlyArray<ToolCall>, ModelError> => {
  const calls: Array<ToolCall> = []
  for (const [index, call] of [...pending].sort(([a], [b]) => a - b)) {
    if (wire === "length" && (call.name === "" || Either.isLeft(parseJson(call.arguments)))) continue
    if (call.name === "") {
      return Either.left(
        new ModelError({ reason: "BadResponse", detail: `the server sent a tool call (index ${index}) without a name` })
      )
    }
    const args = call.arguments.trim() === "" ? "{}" : call.arguments
    calls.push(new ToolCall({ id: call.id ?? newId(), name: call.name, arguments: args }))
  }
  return Either.right(calls)
}

/**
 * Folds the chunks of one streamed turn. Owned by one stream run: `push`
 * each chunk in arrival order, then `finish` once the body ended.
 */
export class TurnAssembler {
  private readonly calls = new Map<number, Pending>()
  private lastIndex = 0
  private wireFinish: string | undefined
  private usage: WireUsage | undefined
  private timings: Timings | undefined

  constructor(private readonly newId: () => string = newToolCallId) {}

  private indexOf(fragment: ToolCallDelta, position: number): number {
    if (typeof fragment.index === "number") return fragment.index
    const id = fragment.id ?? undefined
    if (id !== undefined && id !== "") {
      for (const [index, call] of this.calls) if (call.id === id) return index
      return this.calls.size === 0 ? position : Math.max(...this.calls.keys()) + 1
    }
    return this.calls.size === 0 ? position : this.lastIndex
  }

  private toolFragment(fragment: ToolCallDelta, position: number): void {
    const index = this.indexOf(fragment, position)
    this.lastIndex = index
    const call = this.calls.get(index) ?? { id: undefined, name: "", arguments: "" }
    this.calls.set(index, call)
    const id = fragment.id ?? undefined
    if (call.id === undefined && id !== undefined && id !== "") call.id = id
    const name = fragment.function?.name ?? undefined
    if (call.name === "" && name !== undefined) call.name = name
    call.arguments += fragment.function?.arguments ?? ""
  }

  /** The events a chunk yields at once: text and reasoning. Tool-call fragments are kept for `finish`. */
  push(chunk: CompletionChunk): Either.Either<ReadonlyArray<ModelEvent>, ChatModelError> {
    if (chunk.error !== undefined && chunk.error !== null) return Either.left(serverFailure(chunk.error, undefined))
    if (chunk.usage !== undefined && chunk.usage !== null) this.usage = chunk.usage
    if (chunk.timings !== undefined && chunk.timings !== null) this.timings = chunk.timings
    const events: Array<ModelEvent> = []
    const progress = chunk.prompt_progress
    if (progress !== undefined && progress !== null) events.push(new PromptProgress(progress))
    for (const choice of chunk.choices ?? []) {
      if ((choice.index ?? 0) !== 0) continue
      const delta = choice.delta
      if (delta !== undefined && delta !== null) {
        const reasoning = delta.reasoning_content ?? delta.reasoning ?? ""
        if (reasoning !== "") events.push(new ReasoningDelta({ text: reasoning }))
        const content = delta.content ?? ""
        if (content !== "") events.push(new TextDelta({ text: content }))
        const fragments = delta.tool_calls ?? []
        fragments.forEach((fragment, position) => this.toolFragment(fragment, position))
      }
      if (choice.finish_reason !== undefined && choice.finish_reason !== null) this.wireFinish = choice.finish_reason
    }
    return Either.right(events)
  }

  /**
   * The closing events: the tool calls in index order, the usage, `Finished`.
   * `sawDone`: the server sent `[DONE]`. A body that ended with neither a
   * finish reason nor `[DONE]` was cut short.
   */
  finish(sawDone: boolean): Either.Either<ReadonlyArray<ModelEvent>, ModelError> {
    if (this.wireFinish === undefined && !sawDone) {
      return Either.left(
        new ModelError({ reason: "Transport", detail: "the response ended before the turn finished (no finish reason, no [DONE])" })
      )
    }
    return Either.map(callsOrError([...this.calls], this.newId, this.wireFinish), (calls) => {
      const usage = usageEvent(this.usage, this.timings)
      return [
        ...calls.map((call) => new ToolCallRequested({ call })),
        ...(usage === undefined ? [] : [usage]),
        new Finished({ reason: finishReason(this.wireFinish, calls.length > 0) })
      ]
    })
  }
}

const argumentsText = (value: unknown): string =>
  value === undefined || value === null ? "{}" : typeof value === "string" ? value : JSON.stringify(value)

/** The events of a whole (non-streamed) completion, in the order a stream would have produced them. */
export const completionEvents = (
  completion: Completion,
  newId: () => string = newToolCallId
): Either.Either<ReadonlyArray<ModelEvent>, ModelError> => {
  const choice = completion.choices[0]
  if (choice === undefined) return Either.left(new ModelError({ reason: "BadResponse", detail: "the completion has no choices" }))
  const message = choice.message ?? undefined
  const events: Array<ModelEvent> = []
  const reasoning = message?.reasoning_content ?? message?.reasoning ?? ""
  if (reasoning !== "") events.push(new ReasoningDelta({ text: reasoning }))
  const content = message?.content ?? ""
  if (content !== "") events.push(new TextDelta({ text: content }))
  const pending = (message?.tool_calls ?? []).map((call, index) =>
    [index, { id: call.id ?? undefined, name: call.function.name, arguments: argumentsText(call.function.arguments) }] as const
  )
  return Either.map(callsOrError(pending, newId, choice.finish_reason ?? undefined), (calls) => {
    const usage = usageEvent(completion.usage, completion.timings)
    return [
      ...events,
      ...calls.map((call) => new ToolCallRequested({ call })),
      ...(usage === undefined ? [] : [usage]),
      new Finished({ reason: finishReason(choice.finish_reason ?? undefined, calls.length > 0) })
    ]
  })
}
