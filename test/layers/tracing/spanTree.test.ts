/**
 * The span tree of a tool-calling turn, on the scripted model and on the
 * real engine: names, parents and the attributes that explain the turn.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { LocalChatModel, Session, SessionStack, type SpanRecord } from "easyai"
import { ScriptedChatModel as Scripted } from "easyai/testing"
import { writeFileSync } from "node:fs"
import * as path from "node:path"
import { engineConfig, testModels } from "../../support/models.js"
import { tempDir } from "../../support/tempDir.js"
import { pickSession, traced } from "../../support/traced.js"

const only = (spans: ReadonlyArray<SpanRecord.SpanRecord>, name: string) => spans.filter((span) => span.name === name)
const one = (spans: ReadonlyArray<SpanRecord.SpanRecord>, name: string) => {
  const found = only(spans, name)
  expect(found, name).toHaveLength(1)
  return found[0]!
}

/** The tree every tool-calling turn has: Session.turn > Agent.run > Agent.hop > (ChatModel.stream, Approval.check, ToolRegistry.call). */
const expectToolTurnTree = (spans: ReadonlyArray<SpanRecord.SpanRecord>) => {
  const turn = one(spans, "Session.turn")
  const run = one(spans, "Agent.run")
  expect(run.parentSpanId).toBe(turn.spanId)
  const hops = only(spans, "Agent.hop").sort((a, b) => a.start - b.start)
  expect(hops.length).toBeGreaterThanOrEqual(2)
  for (const hop of hops) expect(hop.parentSpanId).toBe(run.spanId)
  const [first] = hops
  expect(first!.attributes["easyai.hop"]).toBe(0)
  expect(first!.attributes["easyai.hop.outcome"]).toBe("ToolCalls")
  const models = only(spans, "ChatModel.stream").sort((a, b) => a.start - b.start)
  expect(models.map((span) => span.parentSpanId)).toEqual(hops.map((hop) => hop.spanId))
  const model = models[0]!
  expect(model.attributes).toMatchObject({
    "gen_ai.operation.name": "chat",
    "gen_ai.response.finish_reasons": ["tool_calls"],
    "easyai.response.tool_calls": 1
  })
  expect(typeof model.attributes["easyai.response.events"]).toBe("string")
  const approval = one(spans, "Approval.check")
  const call = one(spans, "ToolRegistry.call")
  expect(approval.parentSpanId).toBe(first!.spanId)
  expect(call.parentSpanId).toBe(first!.spanId)
  expect(approval.attributes).toMatchObject({ "gen_ai.tool.name": "pick", "easyai.approval.decision": "Approved" })
  expect(call.attributes).toMatchObject({
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": "pick",
    "easyai.tool.is_error": false
  })
  expect(call.attributes["gen_ai.tool.call.id"]).toBe(approval.attributes["gen_ai.tool.call.id"])
  for (const span of spans) expect(span.traceId).toBe(turn.traceId)
  return { model, call }
}

describe("the span tree of a tool-calling turn", () => {
  it.live("on the scripted model", () =>
    Effect.gen(function*() {
      const { spans, value } = yield* traced(Effect.flatMap(Session, (s) => s.chat("Pick a color")))
      expect(value.hops).toBe(1)
      const { call, model } = expectToolTurnTree(spans)
      expect(only(spans, "Agent.hop")).toHaveLength(2)
      expect(model.attributes["gen_ai.request.model"]).toBe("scripted")
      expect(model.attributes["gen_ai.usage.input_tokens"]).toBe(12)
      expect(call.attributes["gen_ai.tool.call.id"]).toBe("call_1")
      expect(call.attributes["easyai.tool.result"]).toBe("red")
      const second = only(spans, "ChatModel.stream").sort((a, b) => a.start - b.start)[1]!
      expect(second.attributes["gen_ai.response.finish_reasons"]).toEqual(["stop"])
    }).pipe(Effect.provide(pickSession(Scripted.layer([
      [Scripted.call("pick", { color: "red" }), Scripted.usage(12, 3)],
      Scripted.reply("You picked red.")
    ])))))

  const model = testModels.find((candidate) => candidate.name === "stories260K.gguf") ?? testModels[0]!
  it.live(`on the real engine (${model.name}), with a forced call`, () =>
    Effect.gen(function*() {
      const { spans } = yield* traced(
        Effect.flatMap(Session, (s) => s.chat("Pick a color", { maxTokens: 64, toolChoice: "required", preset: "deterministic" }))
      )
      const { model: turn } = expectToolTurnTree(spans)
      expect(turn.attributes["gen_ai.provider.name"]).toBe("local")
      expect(turn.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0)
      const engines = only(spans, "Engine.stream").sort((a, b) => a.start - b.start)
      const models = only(spans, "ChatModel.stream").sort((a, b) => a.start - b.start)
      expect(engines.map((span) => span.parentSpanId)).toEqual(models.map((span) => span.spanId))
      expect(engines[0]!.attributes["easyai.parse_path"]).toBe("grammar")
      expect(engines[0]!.attributes["easyai.prompt.rendered"]).toContain("Pick a color")
      expect(typeof engines[0]!.attributes["easyai.response.raw"]).toBe("string")
    }).pipe(Effect.provide(pickSession(LocalChatModel.layerFrom(engineConfig(model))))), 120_000)

  it.live("a sandbox operation is a Sandbox.<method> span under the tool call", () => {
    const root = tempDir()
    writeFileSync(path.join(root, "notes.txt"), "hello\n")
    return Effect.gen(function*() {
      const { spans } = yield* traced(Effect.flatMap(Session, (s) => s.chat("Read the notes")))
      const call = only(spans, "ToolRegistry.call").find((span) => span.attributes["gen_ai.tool.name"] === "fs_read")
      expect(call?.attributes["easyai.tool.is_error"]).toBe(false)
      const read = only(spans, "Sandbox.readRange")
      expect(read.length).toBeGreaterThan(0)
      expect(read[0]!.attributes["easyai.sandbox.path"]).toBe("/notes.txt")
      const ancestors = new Set<string>()
      for (let at = read[0]; at?.parentSpanId !== undefined; at = spans.find((span) => span.spanId === at!.parentSpanId)) {
        ancestors.add(at.parentSpanId)
      }
      expect(ancestors.has(call!.spanId)).toBe(true)
    }).pipe(Effect.provide(SessionStack.layer({
      model: Scripted.layer([Scripted.toolCall("fs_read", { path: "/notes.txt" }), Scripted.reply("It says hello.")]),
      host: { root },
      session: { withDefaultTools: false }
    })))
  })

  it.live("a model turn asked again is its own Agent.hop, with the retry's reason and attempt", () =>
    Effect.gen(function*() {
      const { spans } = yield* traced(Effect.flatMap(Session, (s) => s.chat("Pick a color")))
      const hops = only(spans, "Agent.hop").sort((a, b) => a.start - b.start)
      expect(hops.map((hop) => [hop.attributes["easyai.hop.outcome"], hop.attributes["easyai.retry.reason"], hop.attributes["easyai.retry.attempt"]]))
        .toEqual([["ThoughtOnly", "ThoughtOnly", 1], ["Answer", undefined, undefined]])
    }).pipe(Effect.provide(pickSession(Scripted.layer([Scripted.reasoning("Let me think."), Scripted.reply("Red.")])))))
})
