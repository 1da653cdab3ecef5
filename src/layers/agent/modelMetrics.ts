/**
 * The OpenTelemetry GenAI client metrics of a model turn, on Effect's metric
 * registry (what `--otlp` exports): token usage by type and the turn's
 * duration, tagged with the operation and the model.
 *
 * @module
 */
import { Effect, Metric, MetricBoundaries } from "effect"
import type { Usage } from "../../domain/ModelEvent.js"
import type { ModelInfo } from "../../services/ChatModel.js"

/** `gen_ai.client.token.usage`: tokens per turn, `gen_ai.token.type` input or output. */
const tokenUsage = Metric.histogram(
  "gen_ai.client.token.usage",
  MetricBoundaries.exponential({ start: 1, factor: 4, count: 14 }),
  "Tokens used by one model turn."
)

/** `gen_ai.client.operation.duration`: seconds per turn. */
const operationDuration = Metric.histogram(
  "gen_ai.client.operation.duration",
  MetricBoundaries.exponential({ start: 0.01, factor: 2, count: 14 }),
  "Duration of one model turn, in seconds."
)

/** Records one model turn that took `seconds` and reported `usage` (when it did). */
export const recordModelTurn = (info: ModelInfo, seconds: number, usage: Usage | undefined): Effect.Effect<void> => {
  const tagged = (metric: typeof tokenUsage) =>
    metric.pipe(
      Metric.tagged("gen_ai.operation.name", "chat"),
      Metric.tagged("gen_ai.provider.name", info.backend),
      Metric.tagged("gen_ai.request.model", info.name)
    )
  return Effect.all([
    Metric.update(tagged(operationDuration), seconds),
    ...(usage === undefined ? [] : [
      Metric.update(tagged(tokenUsage).pipe(Metric.tagged("gen_ai.token.type", "input")), usage.promptTokens),
      Metric.update(tagged(tokenUsage).pipe(Metric.tagged("gen_ai.token.type", "output")), usage.completionTokens)
    ])
  ], { discard: true })
}
