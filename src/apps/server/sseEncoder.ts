/**
 * A served turn as OpenAI `chat.completion.chunk` server-sent events, plus
 * easyai's own events for clients that know them:
 *
 * | event | when | data |
 * |---|---|---|
 * | `easyai.prompt_progress` | prompt evaluation advanced | `{processed, total}` |
 * | `easyai.tool_call` | a server-side tool is about to run | `{id, name, arguments}` |
 * | `easyai.tool_result` | it finished | `{id, name, content, is_error, duration_ms}` |
 * | `easyai.hop_reset` | the text since the last tool hop was discarded and is produced again | `{reason, attempt}` |
 * | `easyai.prompt_eval` | a model pass (one per tool hop) finished | `{prompt_n, cache_n, predicted_n, prompt_per_second?, predicted_per_second?, n_ctx_used?, n_ctx?}` |
 *
 * Each easyai event is a named SSE event whose data is also a harmless
 * chunk (`object` names the event, `choices` is empty), so a client that
 * ignores event names still parses it. A generic client sees tool activity
 * as one indicator line in the content.
 *
 * @module
 */
import type { CompletionChunk, Delta } from "../../domain/openai/ChatCompletions.js"
import type { ToolCall, ToolResult } from "../../domain/ToolCall.js"
import { type ApiError, envelope } from "./ApiError.js"
import type { StreamOptions } from "./chatRequest.js"
import { objectHeader, type ResponseIdentity, type TurnEvent, TurnTally } from "./turnEvents.js"

/** The longest tool result an `easyai.tool_result` event carries. */
export const maxEventResultChars = 4000

/** One SSE `data:` frame holding `data` as JSON. */
export const dataFrame = (data: unknown): string => `data: ${JSON.stringify(data)}\n\n`
const frame = (data: CompletionChunk | ReturnType<typeof envelope>): string => dataFrame(data)
const named = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`

/** The closing line of every stream. */
export const doneFrame = "data: [DONE]\n\n"

/** The one-line indicator a generic client sees for a server-side tool call. */
export const toolIndicator = (call: ToolCall, result: ToolResult): string =>
  `\n\n> ${result.isError ? "✗" : "✓"} \`${call.name}\`\n\n`

const capped = (text: string): { readonly content: string; readonly truncated: boolean } =>
  text.length > maxEventResultChars
    ? { content: text.slice(0, maxEventResultChars), truncated: true }
    : { content: text, truncated: false }

/** Encodes one turn; owned by one response. */
export class SseEncoder {
  private readonly tally = new TurnTally()
  private toolIndex = 0

  constructor(
    private readonly identity: ResponseIdentity,
    private readonly options: StreamOptions
  ) {}

  private chunk(delta: Delta, finishReason: string | null = null): string {
    return frame({ ...objectHeader(this.identity, "chat.completion.chunk"), choices: [{ index: 0, delta, finish_reason: finishReason }] })
  }

  private easyai(event: string, fields: Record<string, unknown>): string {
    return this.options.events ? named(event, { ...objectHeader(this.identity, event), choices: [], ...fields }) : ""
  }

  /** The opening chunk: the assistant role. */
  start(): string {
    return this.chunk({ role: "assistant", content: "" })
  }

  /** The frames of one event (often none). */
  event(event: TurnEvent): string {
    this.tally.add(event)
    switch (event._tag) {
      case "TextDelta":
        return this.chunk({ content: event.text })
      case "ReasoningDelta":
        return this.chunk({ reasoning_content: event.text })
      case "ToolCallRequested": {
        const index = this.toolIndex++
        const { call } = event
        return this.chunk({
          tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } }]
        })
      }
      case "PromptProgress":
        return this.options.promptProgress
          ? this.easyai("easyai.prompt_progress", { prompt_progress: { processed: event.processed, total: event.total } })
          : ""
      case "ToolCallStarted":
        return this.easyai("easyai.tool_call", {
          tool_call: { id: event.call.id, name: event.call.name, arguments: event.call.arguments }
        })
      case "ToolCallFinished": {
        const { content, truncated } = capped(event.result.content)
        const indicator = this.options.toolIndicators ? this.chunk({ content: toolIndicator(event.call, event.result) }) : ""
        return this.easyai("easyai.tool_result", {
          tool_result: {
            id: event.call.id,
            name: event.call.name,
            content,
            truncated,
            is_error: event.result.isError,
            duration_ms: event.durationMillis
          }
        }) + indicator
      }
      case "HopReset":
        return this.easyai("easyai.hop_reset", { hop_reset: { reason: event.reason, attempt: event.attempt } })
      case "Usage":
        return this.easyai("easyai.prompt_eval", {
          prompt_eval: {
            prompt_n: event.promptTokens - (event.cachedTokens ?? 0),
            cache_n: event.cachedTokens ?? 0,
            predicted_n: event.completionTokens,
            ...(event.promptTokensPerSecond === undefined ? {} : { prompt_per_second: event.promptTokensPerSecond }),
            ...(event.tokensPerSecond === undefined ? {} : { predicted_per_second: event.tokensPerSecond }),
            ...(event.contextUsed === undefined ? {} : { n_ctx_used: event.contextUsed }),
            ...(event.contextSize === undefined ? {} : { n_ctx: event.contextSize })
          }
        })
      case "Finished":
      case "MessagesAppended":
      case "TurnComplete":
        return ""
    }
  }

  /** The closing frames: the finish reason with timings, the usage when asked, `[DONE]`. */
  finish(): string {
    const last = frame({
      ...objectHeader(this.identity, "chat.completion.chunk"),
      choices: [{ index: 0, delta: {}, finish_reason: this.tally.finishReason ?? "stop" }],
      // Timings only when the model reported any: zeros would read as a measurement.
      ...(this.tally.sawUsage ? { timings: this.tally.timings() } : {})
    })
    const usage = this.options.includeUsage
      ? frame({ ...objectHeader(this.identity, "chat.completion.chunk"), choices: [], usage: this.tally.usage() })
      : ""
    return last + usage + doneFrame
  }

  /** The frames of a failure after the stream started: an error chunk, then `[DONE]`. */
  fail(error: ApiError): string {
    return frame(envelope(error)) + doneFrame
  }

  /** The tally so far, for metrics. */
  get totals(): TurnTally {
    return this.tally
  }
}
