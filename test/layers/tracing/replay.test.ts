/**
 * Record and replay: a real-engine tool-calling turn written to a trace
 * file becomes a script that the scripted model plays to the same events.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, Layer, Schema, Stream } from "effect"
import { type AgentEvent, LocalChatModel, Session, TraceReplay, Tracing } from "easyai"
import { ScriptedChatModel as Scripted } from "easyai/testing"
import { readFileSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { engineConfig, testModels } from "../../support/models.js"
import { runCli } from "../../support/process.js"
import { tempDir } from "../../support/tempDir.js"
import { pickSession } from "../../support/traced.js"

const ask = (text: string) =>
  Effect.flatMap(Session, (s) =>
    Effect.map(
      Stream.runCollect(s.stream(text, { maxTokens: 64, toolChoice: "required", preset: "deterministic" })),
      Chunk.toArray
    ))

/** Events with the one thing a replay cannot repeat, the wall-clock duration of a tool call, left out. */
const comparable = (events: ReadonlyArray<AgentEvent>) =>
  events.map((event) => (event._tag === "ToolCallFinished" ? { ...event, durationMillis: 0 } : event))

const model = testModels.find((candidate) => candidate.name === "stories260K.gguf") ?? testModels[0]!

describe("easyai replay", () => {
  it.live(`replays a turn recorded on the real engine (${model.name}) to the same events`, () =>
    Effect.gen(function*() {
      const file = path.join(tempDir(), "turn.jsonl")
      const recorded = yield* ask("Pick a color").pipe(
        Effect.provide(pickSession(LocalChatModel.layerFrom(engineConfig(model)))),
        Effect.provide(Tracing.layer({ traceFile: file }).pipe(Layer.provide(NodeHttpClient.layer)))
      )
      expect(recorded.some((event) => event._tag === "ToolCallFinished")).toBe(true)
      const script = Either.getOrThrow(
        Either.flatMap(TraceReplay.parseTrace(file, readFileSync(file, "utf8")), (records) => TraceReplay.toScript(file, records))
      )
      // Through its JSON text, as `easyai replay --to-script` prints it.
      const decoded = yield* Schema.decodeUnknown(Scripted.Script)(JSON.parse(TraceReplay.encodeScript(script)))
      const replayed = yield* ask("Pick a color").pipe(Effect.provide(pickSession(Scripted.layer(decoded.turns))))
      expect(comparable(replayed)).toEqual(comparable(recorded))
    }), 120_000)

  it.effect("refuses a file that is not a trace, naming the line", () =>
    Effect.sync(() => {
      const bad = TraceReplay.parseTrace("t.jsonl", "\n{\"name\":\"x\"}\n")
      expect(Either.isLeft(bad) && bad.left.message).toMatch(/^t\.jsonl:2: not a span/)
      const notJson = TraceReplay.parseTrace("t.jsonl", "{oops")
      expect(Either.isLeft(notJson) && notJson.left.message).toMatch(/^t\.jsonl:1: not JSON/)
      const none = TraceReplay.toScript("t.jsonl", [])
      expect(Either.isLeft(none) && none.left.message).toContain("no ChatModel.stream span")
    }))

  it.effect("replays a turn that failed as its events and then the failure", () =>
    Effect.sync(() => {
      const dir = tempDir()
      const file = path.join(dir, "t.jsonl")
      const span = {
        name: "ChatModel.stream", traceId: "t", spanId: "s", kind: "client", start: 1, end: 2, status: "error",
        error: "ModelError: Transport: reset", attributes: { "easyai.response.events": "[{\"_tag\":\"TextDelta\",\"text\":\"Hi\"}]" }, events: []
      }
      writeFileSync(file, `${JSON.stringify(span)}\n`)
      const script = Either.getOrThrow(
        Either.flatMap(TraceReplay.parseTrace(file, readFileSync(file, "utf8")), (records) => TraceReplay.toScript(file, records))
      )
      expect(script.turns).toHaveLength(1)
      expect(script.turns[0]!.map((step) => step._tag)).toEqual(["TextDelta", "Fail"])
    }))

  it.live("easyai replay --to-script prints the script, --help says so; a missing file or flag, or a trace file that cannot be opened, is one line and exit 1", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const file = path.join(dir, "t.jsonl")
      const span = {
        name: "ChatModel.stream", traceId: "t", spanId: "s", kind: "client", start: 1, end: 2, status: "ok",
        attributes: { "easyai.response.events": "[{\"_tag\":\"TextDelta\",\"text\":\"Hi\"},{\"_tag\":\"Finished\",\"reason\":\"stop\"}]" },
        events: []
      }
      writeFileSync(file, `${JSON.stringify(span)}\n`)
      const printed = yield* runCli({ cwd: dir }, "replay", file, "--to-script")
      expect(printed.exitCode, printed.stderr).toBe(0)
      const script = yield* Schema.decodeUnknown(Scripted.Script)(JSON.parse(printed.stdout))
      expect(script.turns[0]!.map((step) => step._tag)).toEqual(["TextDelta", "Finished"])
      const missing = yield* runCli({ cwd: dir }, "replay", path.join(dir, "none.jsonl"), "--to-script")
      expect(missing.exitCode).toBe(1)
      expect(missing.stderr).toMatch(/^easyai replay: cannot read .*none\.jsonl/)
      expect(missing.stderr.split("\n")).toHaveLength(1)
      const help = yield* runCli({ cwd: dir }, "replay", "--help")
      expect(help.exitCode).toBe(0)
      expect(help.stdout).toContain("Usage: easyai replay FILE.jsonl --to-script")
      expect(help.stdout).toContain("--to-script")
      const unopenable = yield* runCli({ cwd: dir }, "-p", "x", "--url", "http://127.0.0.1:9", "--trace-file", path.join(dir, "none", "t.jsonl"))
      expect(unopenable.exitCode).toBe(1)
      expect(unopenable.stderr).toMatch(/^easyai: cannot open the trace file .*t\.jsonl: ENOENT/)
      const bare = yield* runCli({ cwd: dir }, "replay", file)
      expect(bare.exitCode).toBe(1)
      expect(bare.stderr).toContain("--to-script")
    }), 60_000)
})
