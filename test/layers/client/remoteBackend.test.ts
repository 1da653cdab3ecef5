/**
 * The session and its agent loop behave on a remote model exactly as on the
 * scripted one: `RemoteChatModel` pointed at a real OpenAI-compatible peer
 * replaying scripted turns over SSE.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Deferred, Effect, Fiber, Schema, Stream } from "effect"
import { Session, SessionStack, Tool } from "easyai"
import { hasNoDanglingToolCalls } from "../../../src/domain/Message.js"
import { ScriptedChatModel as Scripted } from "easyai/testing"
import * as RemoteChatModel from "../../../src/layers/model/RemoteChatModel.js"
import { openaiPeer, type PeerOptions } from "../../support/openaiPeer.js"

const pick = Tool.make({
  name: "pick",
  description: "Pick a color.",
  parameters: Schema.Struct({ color: Schema.Literal("red", "green", "blue"), loud: Schema.Boolean }),
  handler: ({ color, loud }) => Effect.succeed(loud ? color.toUpperCase() : color)
})

/** A session on a remote model served by a fresh peer; returns the peer and runs `body` with the session. */
const onPeer = <A, E>(options: PeerOptions, body: (peer: Effect.Effect.Success<ReturnType<typeof openaiPeer>>) => Effect.Effect<A, E, Session>) =>
  Effect.gen(function*() {
    const peer = yield* openaiPeer(options)
    const stack = SessionStack.layer({
      model: RemoteChatModel.layerFrom({ baseUrl: `${peer.url}/v1`, model: "peer-model" }),
      session: {
        system: "You are a storyteller.",
        withDefaultTools: false,
        tools: [pick],
        preamble: { injectDateTime: false }
      }
    })
    return yield* Effect.provide(body(peer), stack)
  })

const events = (text: string, options: Parameters<Session["Type"]["stream"]>[1] = {}) =>
  Effect.flatMap(Session, (s) => Effect.map(Stream.runCollect(s.stream(text, options)), Chunk.toArray))

describe("Session on the remote model", () => {
  it.scopedLive("asks again when the stream is cut after only reasoning was shown (retry_on_incomplete)", () =>
    onPeer({
      turns: [[...Scripted.reasoning("Let", " me", " think", " hard"), ...Scripted.text("never sent")], [...Scripted.text("Done.")]],
      faults: { cutAfterChunks: 4 }
    }, (peer) =>
      Effect.gen(function*() {
        const seen = yield* events("Go", { toolChoice: "none" })
        expect(seen.filter((e) => e._tag === "HopReset")).toMatchObject([{ reason: "Incomplete", attempt: 1 }])
        const done = seen.at(-1)
        expect(done?._tag === "TurnComplete" && done.text).toBe("Done.")
        expect(peer.chatBodies()).toHaveLength(2)
      })))

  it.scopedLive("answers, streaming the same text it records", () =>
    onPeer({ turns: [Scripted.reply("There was a cat.")] }, (peer) =>
      Effect.gen(function*() {
        const seen = yield* events("Once upon a time", { toolChoice: "none" })
        const done = seen.at(-1)
        expect(done?._tag).toBe("TurnComplete")
        const streamed = seen.flatMap((e) => (e._tag === "TextDelta" ? [e.text] : [])).join("")
        expect(streamed).toBe("There was a cat.")
        expect(done?._tag === "TurnComplete" && done.text).toBe(streamed)
        const history = yield* Effect.flatMap(Session, (s) => s.history)
        expect(history.map((m) => m._tag)).toEqual(["UserMessage", "AssistantMessage"])
        expect(history[1]?._tag === "AssistantMessage" && history[1].content).toBe(streamed)
        const [body] = peer.chatBodies()
        expect(body?.["model"]).toBe("peer-model")
        expect(body?.["messages"]).toMatchObject([{ role: "system" }, { role: "user", content: "Once upon a time" }])
      })))

  it.scopedLive("completes a tool round trip: the result goes back with the call's id", () =>
    onPeer({
      turns: [Scripted.toolCall("pick", { color: "red", loud: false }, { id: "call_pick_1" }), Scripted.reply("You picked red.")]
    }, (peer) =>
      Effect.gen(function*() {
        const seen = yield* events("Pick a color", { toolChoice: "required" })
        const finished = seen.filter((e) => e._tag === "ToolCallFinished")
        expect(finished).toHaveLength(1)
        expect(finished[0]?._tag === "ToolCallFinished" && finished[0].call.name).toBe("pick")
        expect(finished[0]?._tag === "ToolCallFinished" && finished[0].result.content).toBe("red")
        expect(seen.at(-1)).toMatchObject({ _tag: "TurnComplete", hops: 1, text: "You picked red." })
        const history = yield* Effect.flatMap(Session, (s) => s.history)
        expect(history.map((m) => m._tag)).toEqual(["UserMessage", "AssistantMessage", "ToolMessage", "AssistantMessage"])
        expect(hasNoDanglingToolCalls(history)).toBe(true)

        const [first, second] = peer.chatBodies()
        expect(first?.["tool_choice"]).toBe("required")
        expect(first?.["tools"]).toMatchObject([{ type: "function", function: { name: "pick", description: "Pick a color." } }])
        expect(second?.["messages"]).toMatchObject([
          { role: "system" },
          { role: "user", content: "Pick a color" },
          {
            role: "assistant",
            tool_calls: [{ id: "call_pick_1", type: "function", function: { name: "pick", arguments: "{\"color\":\"red\",\"loud\":false}" } }]
          },
          { role: "tool", tool_call_id: "call_pick_1", content: "red" }
        ])
      })))

  it.scopedLive("stops when interrupted mid-stream, aborts the request, keeps the history consistent, and goes on", () =>
    onPeer({
      turns: [[...Scripted.text("Once"), Scripted.delay("1 hour"), ...Scripted.text(" more")], Scripted.reply("Short.")]
    }, (peer) =>
      Effect.gen(function*() {
        const s = yield* Session
        const firstDelta = yield* Deferred.make<void>()
        const fiber = yield* s.stream("Tell a very long story", { toolChoice: "none" }).pipe(
          Stream.runForEach((e) => (e._tag === "TextDelta" ? Deferred.succeed(firstDelta, undefined) : Effect.void)),
          Effect.fork
        )
        yield* Deferred.await(firstDelta)
        yield* Fiber.interrupt(fiber)
        yield* peer.waitFor(() => peer.aborted() === 1).pipe(Effect.timeout("5 seconds"))
        expect(yield* s.history).toEqual([])
        const next = yield* s.chat("Once upon a time", { toolChoice: "none" })
        expect(next).toMatchObject({ _tag: "TurnComplete", text: "Short." })
        expect((yield* s.history).map((m) => m._tag)).toEqual(["UserMessage", "AssistantMessage"])
      })))
})
