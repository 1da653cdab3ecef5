/**
 * The server's counters, exposed at `/metrics` in the Prometheus text
 * format: requests, errors, tool calls, tokens, the current load and the
 * last generation speed, with the series dashboards graph for llama-server.
 *
 * They live on Effect's metric registry, the one `--otlp` exports: the
 * scrape and the export read the same values. Each server tags its own
 * with `easyai.server`, so two servers in one process count apart.
 *
 * @module
 */
import { Effect, Metric, type MetricKeyType, type MetricState } from "effect"
import type { Load } from "./admission.js"

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

/** Tells the servers of one process apart on the shared registry. */
let servers = 0

/** Fresh counters, all zero. */
export const make: Effect.Effect<ServerMetrics> = Effect.sync(() => {
  const server = String(++servers)
  const counter = (name: string, description: string) =>
    Metric.counter(name, { description, incremental: true }).pipe(Metric.tagged("easyai.server", server))
  const gauge = (name: string, description: string) => Metric.gauge(name, { description }).pipe(Metric.tagged("easyai.server", server))
  const requests = counter("easyai.server.requests", "HTTP requests handled.")
  const errors = counter("easyai.server.errors", "Requests answered with a status of 400 or more, or whose stream broke off with an error.")
  const toolCalls = counter("easyai.server.tool_calls", "Tool calls run server-side.")
  const promptTokens = counter("easyai.server.prompt_tokens", "Prompt tokens evaluated.")
  const completionTokens = counter("easyai.server.completion_tokens", "Tokens generated.")
  const tokensPerSecond = gauge("easyai.server.tokens_per_second", "Generation speed of the last finished request.")
  const promptTokensPerSecond = gauge("easyai.server.prompt_tokens_per_second", "Prompt evaluation speed of the last request.")
  const kvCacheUsage = gauge("easyai.server.kv_cache_usage_ratio", "Share of the context the last request's sequence filled.")

  const count = (metric: Metric.Metric<MetricKeyType.MetricKeyType.Counter<number>, number, MetricState.MetricState.Counter<number>>) =>
    Effect.map(Metric.value(metric), (state) => state.count)
  const level = (metric: Metric.Metric<MetricKeyType.MetricKeyType.Gauge<number>, number, MetricState.MetricState.Gauge<number>>) =>
    Effect.map(Metric.value(metric), (state) => state.value)
  const setWhenKnown = (metric: Parameters<typeof level>[0], value: number | undefined) =>
    value === undefined ? Effect.void : Metric.set(metric, value)

  return {
    request: (status) =>
      Effect.zipRight(Metric.increment(requests), status >= 400 ? Metric.increment(errors) : Effect.void),
    failure: Metric.increment(errors),
    toolCall: Metric.increment(toolCalls),
    generation: (totals) =>
      Effect.all([
        Metric.incrementBy(promptTokens, totals.promptTokens),
        Metric.incrementBy(completionTokens, totals.completionTokens),
        setWhenKnown(tokensPerSecond, totals.tokensPerSecond),
        setWhenKnown(promptTokensPerSecond, totals.promptTokensPerSecond),
        setWhenKnown(
          kvCacheUsage,
          totals.contextUsed !== undefined && totals.contextSize !== undefined && totals.contextSize > 0
            ? totals.contextUsed / totals.contextSize
            : undefined
        )
      ], { discard: true }),
    render: (load) =>
      Effect.map(
        Effect.all({
          requests: count(requests),
          errors: count(errors),
          toolCalls: count(toolCalls),
          promptTokens: count(promptTokens),
          completionTokens: count(completionTokens),
          tokensPerSecond: level(tokensPerSecond),
          promptTokensPerSecond: level(promptTokensPerSecond),
          kvCacheUsage: level(kvCacheUsage)
        }),
        (c) =>
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
          ].join("")
      )
  }
})
