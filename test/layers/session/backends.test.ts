/**
 * The agent loop and the session behave the same on every backend: the
 * scripted model (deterministic) and the real engine on every test model.
 * Assertions are structural — the real models here do not follow
 * instructions, so their words are never checked.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Deferred, Effect, Fiber, Layer, Schema, Stream } from "effect"
import { type ChatModel, LocalChatModel, RemoteChatModel, Session, SessionStack, Tool } from "easyai"
import { hasNoDanglingToolCalls } from "../../../src/domain/Message.js"
import { ScriptedChatModel as Scripted } from "easyai/testing"
import { engineConfig, testModels } from "../../support/models.js"
import { openaiPeer } from "../../support/openaiPeer.js"

interface Backend {
  readonly name: string
  /** Whether the backend reports KV-cache reuse (only the local engine knows it). */
  readonly reportsCachedTokens: boolean
  readonly model: (script: ReadonlyArray<Scripted.Turn>) => Layer.Layer<ChatModel, unknown>
}

const backends: ReadonlyArray<Backend> = [
  { name: "the scripted model", reportsCachedTokens: false, model: (script) => Scripted.layer(script) },
  {
    name: "a remote OpenAI-compatible peer replaying the script",
    reportsCachedTokens: false,
    model: (script) =>
      Layer.unwrapScoped(
        Effect.map(openaiPeer({ turns: script }), (peer) => RemoteChatModel.layerFrom({ baseUrl: peer.url }))
      )
  },
  ...testModels.map((model): Backend => ({
    name: `the engine on ${model.name}`,
    reportsCachedTokens: true,
    model: () => LocalChatModel.layerFrom(engineConfig(model))
  }))
]

const pick = Tool.make({
  name: "pick",
  description: "Pick a color.",
  parameters: Schema.Struct({ color: Schema.Literal("red", "green", "blue"), loud: Schema.Boolean }),
  handler: ({ color, loud }) => Effect.succeed(loud ? color.toUpperCase() : color)
})

/** A small prompt, so byte-level test vocabularies stay well inside the context. */
const session = (backend: Backend, script: ReadonlyArray<Scripted.Turn>) =>
  SessionStack.layer({
    model: backend.model(script),
    session: {
      system: "You are a storyteller.",
      withDefaultTools: false,
      tools: [pick],
      preamble: { injectDateTime: false }
    }
  })

const events = (text: string, options: Parameters<Session["Type"]["stream"]>[1]) =>
  Effect.flatMap(Session, (s) => Effect.map(Stream.runCollect(s.stream(text, options)), Chunk.toArray))

for (const backend of backends) {
  describe(`Session on ${backend.name}`, () => {
    it.live("answers, streaming the same text it records", () =>
      Effect.gen(function*() {
        const seen = yield* events("Once upon a time", { maxTokens: 8, preset: "deterministic", toolChoice: "none" })
        const done = seen.at(-1)
        expect(done?._tag).toBe("TurnComplete")
        const streamed = seen.flatMap((e) => (e._tag === "TextDelta" ? [e.text] : [])).join("")
        expect(done?._tag === "TurnComplete" && done.text).toBe(streamed)
        expect(done?._tag === "TurnComplete" && ["Stop", "Length"].includes(done.stopReason)).toBe(true)
        const history = yield* Effect.flatMap(Session, (s) => s.history)
        expect(history.map((m) => m._tag)).toEqual(["UserMessage", "AssistantMessage"])
        expect(history[1]?._tag === "AssistantMessage" && history[1].content).toBe(streamed)
      }).pipe(Effect.provide(session(backend, [Scripted.reply("There was a cat.")]))))

    it.live("keeps the conversation across turns", () =>
      Effect.gen(function*() {
        const s = yield* Session
        yield* s.chat("Once upon a time", { maxTokens: 8, toolChoice: "none" })
        const second = yield* events("What next?", { maxTokens: 8, toolChoice: "none" })
        expect(second.at(-1)?._tag).toBe("TurnComplete")
        expect((yield* s.history).map((m) => m._tag)).toEqual([
          "UserMessage",
          "AssistantMessage",
          "UserMessage",
          "AssistantMessage"
        ])
        const usage = second.find((e) => e._tag === "Usage")
        const cached = usage?._tag === "Usage" ? usage.cachedTokens ?? 0 : 0
        expect(cached > 0).toBe(backend.reportsCachedTokens)
      }).pipe(Effect.provide(session(backend, [Scripted.reply("one"), Scripted.reply("two")]))))

    it.live("completes a tool round trip with a forced first call", () =>
      Effect.gen(function*() {
        const seen = yield* events("Pick a color", { maxTokens: 64, toolChoice: "required", preset: "deterministic" })
        const finished = seen.filter((e) => e._tag === "ToolCallFinished")
        expect(finished).toHaveLength(1)
        expect(finished[0]?._tag === "ToolCallFinished" && finished[0].call.name).toBe("pick")
        expect(finished[0]?._tag === "ToolCallFinished" && finished[0].result.isError).toBe(false)
        expect(seen.at(-1)).toMatchObject({ _tag: "TurnComplete", hops: 1 })
        const history = yield* Effect.flatMap(Session, (s) => s.history)
        expect(history.map((m) => m._tag)).toEqual(["UserMessage", "AssistantMessage", "ToolMessage", "AssistantMessage"])
        expect(hasNoDanglingToolCalls(history)).toBe(true)
      }).pipe(Effect.provide(session(backend, [
        Scripted.toolCall("pick", { color: "red", loud: false }),
        Scripted.reply("You picked red.")
      ]))))

    it.live("stops when interrupted, keeps the history consistent, and goes on", () =>
      Effect.gen(function*() {
        const s = yield* Session
        const firstDelta = yield* Deferred.make<void>()
        const fiber = yield* s.stream("Tell a very long story", { maxTokens: 1500, toolChoice: "none" }).pipe(
          Stream.runForEach((e) => (e._tag === "TextDelta" ? Deferred.succeed(firstDelta, undefined) : Effect.void)),
          Effect.fork
        )
        yield* Deferred.await(firstDelta)
        yield* Fiber.interrupt(fiber)
        expect(yield* s.history).toEqual([])
        const next = yield* s.chat("Once upon a time", { maxTokens: 4, toolChoice: "none" })
        expect(next._tag).toBe("TurnComplete")
        expect((yield* s.history).map((m) => m._tag)).toEqual(["UserMessage", "AssistantMessage"])
      }).pipe(Effect.provide(session(backend, [
        [...Scripted.text("Once"), Scripted.delay("1 hour"), ...Scripted.text(" more")],
        Scripted.reply("Short.")
      ]))))
  })
}
