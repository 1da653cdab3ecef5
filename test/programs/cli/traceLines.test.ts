/**
 * `--verbose` reads the spans: the lines a turn's spans become, and the
 * real `easyai -v` printing them on stderr (stdout keeps only the answer).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { SpanRecord } from "easyai"
import { render } from "../../../src/programs/cli/traceLines.js"
import { engineConfig, testModels } from "../../support/models.js"
import { runCli } from "../../support/process.js"
import { tempDir } from "../../support/tempDir.js"

const span = (name: string, attributes: Record<string, unknown>): SpanRecord.SpanRecord => ({
  name, traceId: "t", spanId: "s", kind: "internal", start: 1000, end: 1250, status: "ok", attributes, events: []
})

describe("the verbose lines", () => {
  it("render a model turn, its calls, the approval, the dispatch and a retry", () => {
    expect(render(span("ChatModel.stream", {
      "gen_ai.usage.input_tokens": 120,
      "gen_ai.usage.cache_read.input_tokens": 100,
      "gen_ai.usage.output_tokens": 7,
      "gen_ai.response.finish_reasons": ["tool_calls"],
      "easyai.response.events": JSON.stringify([
        { _tag: "ToolCallRequested", call: { id: "c1", name: "pick", arguments: "{\"color\":\"red\"}" } },
        { _tag: "Finished", reason: "tool_calls" }
      ])
    }))).toEqual([
      "[model] 120 prompt tokens (100 cached) · 7 generated · finish [\"tool_calls\"] · 250 ms",
      "[calls] pick({\"color\":\"red\"})"
    ])
    expect(render(span("Approval.check", { "gen_ai.tool.name": "pick", "easyai.approval.decision": "Denied" }))).toEqual([
      "[approval] pick: Denied"
    ])
    expect(render(span("ToolRegistry.call", { "gen_ai.tool.name": "pick", "easyai.tool.is_error": true }))).toEqual([
      "[dispatch] pick → error · 250 ms"
    ])
    expect(render(span("Agent.hop", { "easyai.hop": 0, "easyai.retry.reason": "ThoughtOnly", "easyai.retry.attempt": 1 }))).toEqual([
      "[retry] ThoughtOnly · attempt 1"
    ])
    expect(render(span("Sandbox.readRange", {}))).toEqual([])
  })

  const model = testModels.find((candidate) => candidate.name === "stories260K.gguf") ?? testModels[0]!
  it.live(`easyai -p -v on ${model.name} shows the rendered prompt, the raw output and the parse path on stderr`, () =>
    Effect.gen(function*() {
      const result = yield* runCli(
        { cwd: tempDir() },
        "-p", "Once upon a time", "--model", engineConfig(model).modelPath, "--ctx", "2048", "--threads", "1",
        "--max-tokens", "8", "--no-tools", "-v"
      )
      expect(result.exitCode, result.stderr).toBe(0)
      expect(result.stderr).toContain("[prompt] rendered:")
      expect(result.stderr).toContain("  │ Once upon a time")
      expect(result.stderr).toContain("[output] raw:")
      expect(result.stderr).toContain("[parse] text · recovered 0")
      expect(result.stderr).toMatch(/\[model\] \d+ prompt tokens/)
      expect(result.stdout).not.toContain("[prompt]")
    }), 120_000)
})
