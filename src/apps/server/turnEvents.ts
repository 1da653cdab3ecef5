/**
 * One served turn, whichever path produced it: the agent loop's events
 * (server-side tools) or one model pass's events (the client's tools). The
 * two encoders — SSE chunks and a whole completion — read this one union,
 * and share the tally of usage and the finish reason.
 *
 * @module
 */
import type { AgentEvent } from "../../domain/AgentEvent.js"
import type { FinishReason, ModelEvent, Usage } from "../../domain/ModelEvent.js"
import type { Timings, WireUsage } from "../../domain/openai/ChatCompletions.js"

/** An event of a served turn. */
export type TurnEvent = AgentEvent | ModelEvent

/** What a response identifies itself with. */
export interface ResponseIdentity {
  readonly id: string
  /** Seconds since the epoch. */
  readonly created: number
  readonly model: string
}

/** The fields every response object starts with, in OpenAI's order. */
export const objectHeader = (identity: ResponseIdentity, object: string) => ({
  id: identity.id,
  object,
  created: identity.created,
  model: identity.model
})

/** A new response identity (`chatcmpl-…`). */
export const newIdentity = (model: string, nowMillis: number): ResponseIdentity => ({
  id: `chatcmpl-${globalThis.crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`,
  created: Math.floor(nowMillis / 1000),
  model
})

/**
 * The running tally of a turn: token counts summed over its model passes
 * (each tool hop is a pass), the latest context fill and speed, and the
 * finish reason once known.
 */
export class TurnTally {
  promptTokens = 0
  cachedTokens = 0
  completionTokens = 0
  contextUsed: number | undefined
  contextSize: number | undefined
  tokensPerSecond: number | undefined
  promptTokensPerSecond: number | undefined
  finishReason: FinishReason | undefined
  sawUsage = false

  /** Folds one event in. */
  add(event: TurnEvent): void {
    switch (event._tag) {
      case "Usage":
        this.addUsage(event)
        break
      case "Finished":
        this.finishReason = event.reason
        break
      case "TurnComplete":
        this.finishReason = event.stopReason === "Stop" ? "stop" : "length"
        break
      default:
        break
    }
  }

  private addUsage(usage: Usage): void {
    this.sawUsage = true
    this.promptTokens += usage.promptTokens
    this.cachedTokens += usage.cachedTokens ?? 0
    this.completionTokens += usage.completionTokens
    if (usage.contextUsed !== undefined) this.contextUsed = usage.contextUsed
    if (usage.contextSize !== undefined) this.contextSize = usage.contextSize
    if (usage.tokensPerSecond !== undefined) this.tokensPerSecond = usage.tokensPerSecond
    if (usage.promptTokensPerSecond !== undefined) this.promptTokensPerSecond = usage.promptTokensPerSecond
  }

  /** OpenAI's `usage` object. */
  usage(): WireUsage {
    return {
      prompt_tokens: this.promptTokens,
      completion_tokens: this.completionTokens,
      total_tokens: this.promptTokens + this.completionTokens,
      prompt_tokens_details: { cached_tokens: this.cachedTokens }
    }
  }

  /** llama.cpp's `timings` object, with easyai's context fill. */
  timings(): Timings {
    return {
      cache_n: this.cachedTokens,
      prompt_n: this.promptTokens - this.cachedTokens,
      predicted_n: this.completionTokens,
      ...(this.tokensPerSecond === undefined ? {} : { predicted_per_second: this.tokensPerSecond }),
      ...(this.contextUsed === undefined ? {} : { n_ctx_used: this.contextUsed }),
      ...(this.contextSize === undefined ? {} : { n_ctx: this.contextSize })
    }
  }
}
