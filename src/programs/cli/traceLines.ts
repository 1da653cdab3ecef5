/**
 * `--verbose`, read from the spans: each finished span that explains a turn
 * becomes a few readable lines on stderr — the rendered prompt and the raw
 * output of a local model, the parse path, the model turn's accounting
 * (`[model]`), the calls it made, the approval, the dispatch and the
 * retries. A span ends synchronously, so its lines are written then.
 *
 * @module
 */
import { Either } from "effect"
import { parseJson } from "../../domain/json.js"
import type { SpanRecord } from "../../layers/tracing/SpanRecord.js"
import type { SpanSink } from "../../layers/tracing/Tracing.js"

const text = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value) ?? "")
const number = (value: unknown): number | undefined => (typeof value === "number" ? value : undefined)
const indent = (block: string): string => block.split("\n").map((line) => `  │ ${line}`).join("\n")
const millis = (record: SpanRecord): string => `${Math.round(record.end - record.start)} ms`

/** The calls among a model turn's recorded events: `name(arguments)`. */
const calls = (events: unknown): ReadonlyArray<string> => {
  if (typeof events !== "string") return []
  const parsed = Either.getOrUndefined(parseJson(events))
  if (!Array.isArray(parsed)) return []
  return parsed.flatMap((event: unknown) =>
    typeof event === "object" && event !== null && "_tag" in event && event._tag === "ToolCallRequested" &&
      "call" in event && typeof event.call === "object" && event.call !== null && "name" in event.call &&
      "arguments" in event.call
      ? [`${text(event.call.name)}(${text(event.call.arguments)})`]
      : []
  )
}

/** The lines of one finished span, none for spans `--verbose` does not show. */
export const render = (record: SpanRecord): ReadonlyArray<string> => {
  const a = record.attributes
  const failed = record.status === "error" ? ` · failed: ${record.error ?? ""}` : ""
  switch (record.name) {
    case "Engine.stream":
      return [
        ...(a["easyai.prompt.rendered"] === undefined ? [] : [`[prompt] rendered:\n${indent(text(a["easyai.prompt.rendered"]))}`]),
        ...(a["easyai.response.raw"] === undefined ? [] : [`[output] raw:\n${indent(text(a["easyai.response.raw"]))}`]),
        `[parse] ${text(a["easyai.parse_path"] ?? "none")} · recovered ${text(a["easyai.recovered_calls"] ?? 0)}${failed}`
      ]
    case "ChatModel.stream": {
      const prompt = number(a["gen_ai.usage.input_tokens"])
      const cached = number(a["gen_ai.usage.cache_read.input_tokens"])
      const output = number(a["gen_ai.usage.output_tokens"])
      const made = calls(a["easyai.response.events"])
      return [
        `[model] ${prompt ?? "?"} prompt tokens${cached === undefined ? "" : ` (${cached} cached)`} · ${output ?? "?"} generated · finish ${
          text(a["gen_ai.response.finish_reasons"])
        } · ${millis(record)}${failed}`,
        ...made.map((call) => `[calls] ${call}`)
      ]
    }
    case "Approval.check":
      return [`[approval] ${text(a["gen_ai.tool.name"])}: ${text(a["easyai.approval.decision"] ?? "?")}`]
    case "ToolRegistry.call":
      return [`[dispatch] ${text(a["gen_ai.tool.name"])} → ${a["easyai.tool.is_error"] === true ? "error" : "ok"} · ${millis(record)}${failed}`]
    case "Agent.hop":
      return a["easyai.retry.reason"] === undefined
        ? [`[hop ${text(a["easyai.hop"])}] ${text(a["easyai.hop.outcome"] ?? "")} · ${millis(record)}${failed}`]
        : [`[retry] ${text(a["easyai.retry.reason"])} · attempt ${text(a["easyai.retry.attempt"])}`]
    default:
      return []
  }
}

/** A sink writing the verbose lines to stderr. */
export const stderrSink: SpanSink = (record) => {
  const lines = render(record)
  if (lines.length > 0) process.stderr.write(`${lines.join("\n")}\n`)
}
