/**
 * The server's counters, exposed at `/metrics` in the Prometheus text
 * format: requests, errors, tool calls, tokens, the current load and the
 * last generation speed.
 *
 * @module
 */
import { Effect, Ref } from "effect"
import type { Load } from "./admission.js"

interface Counters {
  readonly requests: number
  readonly errors: number
  readonly toolCalls: number
  readonly promptTokens: number
  readonly completionTokens: number
  readonly tokensPerSecond: number
  readonly promptTokensPerSecond: number
  readonly kvCacheUsage: number
}

/** What a finished generation adds to the counters. */
export interface GenerationTotals {
  readonly promptTokens: number
  readonly completionTokens: number
  readonly tokensPerSecond?: number | undefined
  readonly promptTokensPerSecond?: number | undefined
  /** The context fill after the generation, for the KV-cache use ratio. */
  readonly contextUsed?: number | undefined
  readonly contextSize?: number | undefined
}

/** The server's counters. */
export interface ServerMetrics {
  /** Counts one HTTP request, and one error when it ended with a status of 400 or more. */
  readonly request: (status: number) => Effect.Effect<void>
  /** Counts a failure after the response started (a stream that broke off with an error chunk). */
  readonly failure: Effect.Effect<void>
  /** Counts one tool call run server-side. */
  readonly toolCall: Effect.Effect<void>
  /** Adds a generation's tokens and records its speed. */
  readonly generation: (totals: GenerationTotals) => Effect.Effect<void>
  /** The exposition text. */
  readonly render: (load: Load) => Effect.Effect<string>
}

const metric = (name: string, type: "counter" | "gauge", help: string, value: number): string =>
  `# HELP ${name} ${help}\n# TYPE ${name} ${type}\n${name} ${value}\n`

/** Fresh counters, all zero. */
export const make: Effect.Effect<ServerMetrics> = Effect.map(
  Ref.make<Counters>({ requests: 0, errors: 0, toolCalls: 0, promptTokens: 0, completionTokens: 0, tokensPerSecond: 0, promptTokensPerSecond: 0, kvCacheUsage: 0 }),
  (counters) => ({
    request: (status) =>
      Ref.update(counters, (c) => ({ ...c, requests: c.requests + 1, errors: c.errors + (status >= 400 ? 1 : 0) })),
    failure: Ref.update(counters, (c) => ({ ...c, errors: c.errors + 1 })),
    toolCall: Ref.update(counters, (c) => ({ ...c, toolCalls: c.toolCalls + 1 })),
    generation: (totals) =>
      Ref.update(counters, (c) => ({
        ...c,
        promptTokens: c.promptTokens + totals.promptTokens,
        completionTokens: c.completionTokens + totals.completionTokens,
        tokensPerSecond: totals.tokensPerSecond ?? c.tokensPerSecond,
        promptTokensPerSecond: totals.promptTokensPerSecond ?? c.promptTokensPerSecond,
        kvCacheUsage: totals.contextUsed !== undefined && totals.contextSize !== undefined && totals.contextSize > 0
          ? totals.contextUsed / totals.contextSize
          : c.kvCacheUsage
      })),
    render: (load) =>
      Effect.map(Ref.get(counters), (c) =>
        [
          metric("easyai_requests_total", "counter", "HTTP requests handled.", c.requests),
          metric("easyai_errors_total", "counter", "Requests answered with a status of 400 or more, or whose stream broke off with an error.", c.errors),
          metric("easyai_tool_calls_total", "counter", "Tool calls run server-side.", c.toolCalls),
          metric("easyai_prompt_tokens_total", "counter", "Prompt tokens evaluated.", c.promptTokens),
          metric("easyai_completion_tokens_total", "counter", "Tokens generated.", c.completionTokens),
          metric("easyai_requests_active", "gauge", "Generations running now.", load.active),
          metric("easyai_requests_queued", "gauge", "Generations waiting for a slot.", load.queued),
          metric("easyai_tokens_per_second", "gauge", "Generation speed of the last finished request.", c.tokensPerSecond),
          // The series dashboards graph for llama-server, under its own names.
          metric("llamacpp:prompt_tokens_total", "counter", "Prompt tokens evaluated.", c.promptTokens),
          metric("llamacpp:tokens_predicted_total", "counter", "Tokens generated.", c.completionTokens),
          metric("llamacpp:prompt_tokens_seconds", "gauge", "Prompt evaluation speed of the last request, in tokens per second.", c.promptTokensPerSecond),
          metric("llamacpp:predicted_tokens_seconds", "gauge", "Generation speed of the last request, in tokens per second.", c.tokensPerSecond),
          metric("llamacpp:kv_cache_usage_ratio", "gauge", "Share of the context the last request's sequence filled (1 = full).", c.kvCacheUsage),
          metric("llamacpp:requests_processing", "gauge", "Requests generating now.", load.active),
          metric("llamacpp:requests_deferred", "gauge", "Requests waiting for a slot.", load.queued)
        ].join(""))
  })
)
