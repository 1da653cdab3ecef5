import { describe, expect, it } from "@effect/vitest"
import { Cause, Chunk, Deferred, Effect, Exit, Fiber, Layer, Ref, Stream, TestClock } from "effect"
import {
  Agent,
  type AgentEvent,
  AgentLive,
  ApprovalLive,
  ChatModel,
  type ChatModelService,
  AssistantMessage,
  type ChatMessage,
  HopLimitReached,
  ModelError,
  SystemMessage,
  Tool,
  ToolCall,
  ToolMessage,
  ToolRegistryLive,
  UserMessage
} from "easyai"
import { failOnHopLimit } from "../../../src/domain/AgentEvent.js"
import { hasNoDanglingToolCalls } from "../../../src/domain/Message.js"
import { ScriptedChatModel as Scripted } from "easyai/testing"
import { collect, completion, scriptedAgent, tags } from "../../support/agent.js"
import { echo, named } from "../../support/tools.js"

const question: ReadonlyArray<ChatMessage> = [
  new SystemMessage({ content: "You are a test." }),
  new UserMessage({ content: "Go." })
]

const run = (input: { readonly maxToolHops?: number; readonly toolChoice?: "required" } = {}) =>
  Effect.flatMap(Agent, (agent) => collect(agent.run({ messages: question, ...input })))

const appended = (events: ReadonlyArray<AgentEvent>): ReadonlyArray<ChatMessage> =>
  events.flatMap((event) => (event._tag === "MessagesAppended" ? event.messages : []))

describe("Agent loop", () => {
  it.effect("streams an answer and completes", () =>
    Effect.gen(function*() {
      const events = yield* run()
      expect(tags(events)).toEqual(["TextDelta", "TextDelta", "MessagesAppended", "TurnComplete"])
      expect(completion(events)).toMatchObject({ text: "Hello there.", stopReason: "Stop", hops: 0 })
      expect(yield* failOnHopLimit(completion(events))).toBe(completion(events))
      expect(appended(events)).toEqual([new AssistantMessage({ content: "Hello there." })])
    }).pipe(Effect.provide(scriptedAgent([Scripted.reply("Hello there.")]))))

  it.effect("runs several hops of tool calls, in order, feeding results back with their ids", () =>
    Effect.gen(function*() {
      const events = yield* run()
      expect(tags(events)).toEqual([
        "ToolCallStarted",
        "ToolCallFinished",
        "MessagesAppended",
        "TextDelta",
        "ToolCallStarted",
        "ToolCallFinished",
        "ToolCallStarted",
        "ToolCallFinished",
        "MessagesAppended",
        "TextDelta",
        "MessagesAppended",
        "TurnComplete"
      ])
      expect(completion(events)).toMatchObject({ text: "done", stopReason: "Stop", hops: 2 })
      const requests = yield* Effect.flatMap(Scripted.ScriptedChatModel, (r) => r.requests)
      expect(requests).toHaveLength(3)
      const third = requests[2]?.messages ?? []
      expect(third.slice(2)).toEqual([
        new AssistantMessage({ content: "", toolCalls: [callOf("echo", { text: "one" }, "call_1")] }),
        new ToolMessage({ toolCallId: "call_1", name: "echo", content: "one" }),
        new AssistantMessage({
          content: "then",
          toolCalls: [
            callOf("echo", { text: "two" }, "a"),
            callOf("echo", { text: "three" }, "b")
          ]
        }),
        new ToolMessage({ toolCallId: "a", name: "echo", content: "two" }),
        new ToolMessage({ toolCallId: "b", name: "echo", content: "three" })
      ])
      expect(requests.every((request) => request.tools.map((t) => t.name).join() === "echo")).toBe(true)
      expect(hasNoDanglingToolCalls([...question, ...appended(events)])).toBe(true)
    }).pipe(Effect.provide(scriptedAgent([
      Scripted.toolCall("echo", { text: "one" }),
      [...Scripted.text("then"), Scripted.call("echo", { text: "two" }, "a"), Scripted.call("echo", { text: "three" }, "b")],
      Scripted.reply("done")
    ], { tools: [echo] }))))

  it.effect("feeds a tool's error back to the model, which can recover", () =>
    Effect.gen(function*() {
      const events = yield* run()
      const results = events.flatMap((event) => (event._tag === "ToolCallFinished" ? [event.result] : []))
      expect(results.map((result) => result.isError)).toEqual([true, true, false])
      expect(results[0]?.content).toContain("unknown tool: ecko. Did you mean: echo?")
      expect(results[1]?.content).toContain("echo: invalid arguments: text: is missing")
      expect(results[1]?.content).toContain(`Example call: echo({"text":"<text>"})`)
      expect(completion(events)).toMatchObject({ text: "recovered", hops: 3 })
      const requests = yield* Effect.flatMap(Scripted.ScriptedChatModel, (r) => r.requests)
      const fed = requests[1]?.messages.at(-1)
      expect(fed).toBeInstanceOf(ToolMessage)
      expect(fed).toMatchObject({ isError: true, name: "ecko" })
    }).pipe(Effect.provide(scriptedAgent([
      Scripted.toolCall("ecko", { text: "x" }),
      Scripted.toolCall("echo", {}),
      Scripted.toolCall("echo", { text: "fixed" }),
      Scripted.reply("recovered")
    ], { tools: [echo] }))))

  it.effect("stops at the hop limit with the partial answer and a typed signal", () =>
    Effect.gen(function*() {
      const events = yield* run({ maxToolHops: 3 })
      expect(completion(events)).toMatchObject({ text: "step 3", stopReason: "HopLimitReached", hops: 3 })
      const signal = yield* Effect.flip(failOnHopLimit(completion(events)))
      expect(signal).toEqual(new HopLimitReached({ hops: 3, partial: "step 3" }))
      expect(yield* Effect.flatMap(Scripted.ScriptedChatModel, (r) => r.remaining)).toBe(2)
      expect(hasNoDanglingToolCalls([...question, ...appended(events)])).toBe(true)
    }).pipe(Effect.provide(scriptedAgent(
      [1, 2, 3, 4, 5].map((n) => Scripted.toolCall("echo", { text: `${n}` }, { text: `step ${n}` })),
      { tools: [echo] }
    ))))

  describe("hop budget", () => {
    const nineHops = [
      ...Array.from({ length: 9 }, () => Scripted.toolCall("echo", { text: "again" })),
      Scripted.reply("finally")
    ]

    it.effect("is 8 by default", () =>
      Effect.gen(function*() {
        expect(completion(yield* run())).toMatchObject({ stopReason: "HopLimitReached", hops: 8 })
      }).pipe(Effect.provide(scriptedAgent(nineHops, { tools: [echo] }))))

    it.effect("is raised to 99999 while bash is registered", () =>
      Effect.gen(function*() {
        expect(completion(yield* run())).toMatchObject({ text: "finally", stopReason: "Stop", hops: 9 })
      }).pipe(Effect.provide(scriptedAgent(nineHops, { tools: [echo, named("bash")] }))))

    it.effect("follows the layer's option", () =>
      Effect.gen(function*() {
        expect(completion(yield* run())).toMatchObject({ stopReason: "HopLimitReached", hops: 2 })
      }).pipe(Effect.provide(scriptedAgent(nineHops, { tools: [echo, named("bash")], agent: { maxToolHops: 2 } }))))
  })

  describe("thought-only turns", () => {
    it.effect("are discarded and retried", () =>
      Effect.gen(function*() {
        const events = yield* run()
        expect(tags(events)).toEqual([
          "ReasoningDelta",
          "HopReset",
          "ReasoningDelta",
          "HopReset",
          "ReasoningDelta",
          "TextDelta",
          "MessagesAppended",
          "TurnComplete"
        ])
        expect(events.filter((e) => e._tag === "HopReset")).toMatchObject([
          { reason: "ThoughtOnly", attempt: 1 },
          { reason: "ThoughtOnly", attempt: 2 }
        ])
        expect(completion(events)).toMatchObject({ text: "42", reasoning: "third", stopReason: "Stop" })
        const requests = yield* Effect.flatMap(Scripted.ScriptedChatModel, (r) => r.requests)
        expect(requests.map((r) => r.messages.length)).toEqual([2, 2, 2])
      }).pipe(Effect.provide(scriptedAgent([
        Scripted.reasoning("first"),
        Scripted.reasoning("second"),
        [...Scripted.reasoning("third"), ...Scripted.text("42")]
      ]))))

    it.effect("promote the reasoning to the answer after two retries", () =>
      Effect.gen(function*() {
        const events = yield* run()
        expect(events.filter((e) => e._tag === "HopReset")).toHaveLength(2)
        expect(events.at(-3)).toMatchObject({ _tag: "TextDelta", text: "thinking 3" })
        expect(completion(events)).toMatchObject({ text: "thinking 3", stopReason: "Stop" })
        expect(appended(events)).toEqual([new AssistantMessage({ content: "thinking 3", reasoning: "thinking 3" })])
      }).pipe(Effect.provide(scriptedAgent([
        Scripted.reasoning("thinking 1"),
        Scripted.reasoning("thinking 2"),
        Scripted.reasoning("thinking 3")
      ]))))
  })

  describe("turns whose stream broke before an answer", () => {
    const cut = Scripted.fail(new ModelError({ reason: "Transport", detail: "the connection closed" }))

    it.effect("are asked again when only reasoning was shown", () =>
      Effect.gen(function*() {
        const events = yield* run()
        expect(tags(events)).toEqual(["ReasoningDelta", "HopReset", "TextDelta", "MessagesAppended", "TurnComplete"])
        expect(events.find((e) => e._tag === "HopReset")).toMatchObject({ reason: "Incomplete", attempt: 1 })
        expect(completion(events)).toMatchObject({ text: "done", stopReason: "Stop" })
      }).pipe(Effect.provide(scriptedAgent([[...Scripted.reasoning("thinking"), cut], Scripted.reply("done")]))))

    it.effect("fail after two retries", () =>
      Effect.gen(function*() {
        const exit = yield* Effect.exit(run())
        expect(exit).toEqual(Exit.fail(new ModelError({ reason: "Transport", detail: "the connection closed" })))
        const requests = yield* Effect.flatMap(Scripted.ScriptedChatModel, (r) => r.requests)
        expect(requests).toHaveLength(3)
      }).pipe(Effect.provide(scriptedAgent([
        [...Scripted.reasoning("a"), cut],
        [...Scripted.reasoning("b"), cut],
        [...Scripted.reasoning("c"), cut],
        Scripted.reply("never")
      ]))))

    it.effect("are not asked again when the stream never started: the client has retried that already", () =>
      Effect.gen(function*() {
        const exit = yield* Effect.exit(run())
        expect(Exit.isFailure(exit)).toBe(true)
        const requests = yield* Effect.flatMap(Scripted.ScriptedChatModel, (r) => r.requests)
        expect(requests).toHaveLength(1)
      }).pipe(Effect.provide(scriptedAgent([[cut], Scripted.reply("never")]))))

    it.effect("are not asked again once answer text was shown", () =>
      Effect.gen(function*() {
        const exit = yield* Effect.exit(run())
        expect(Exit.isFailure(exit)).toBe(true)
        const requests = yield* Effect.flatMap(Scripted.ScriptedChatModel, (r) => r.requests)
        expect(requests).toHaveLength(1)
      }).pipe(Effect.provide(scriptedAgent([[...Scripted.text("Part of"), cut], Scripted.reply("never")]))))
  })

  describe("announce-only turns", () => {
    it.effect("are discarded and retried with a corrective message", () =>
      Effect.gen(function*() {
        const events = yield* run()
        expect(events.filter((e) => e._tag === "HopReset")).toMatchObject([{ reason: "AnnounceOnly", attempt: 1 }])
        expect(completion(events)).toMatchObject({ text: "It is sunny.", stopReason: "Stop", hops: 1 })
        const requests = yield* Effect.flatMap(Scripted.ScriptedChatModel, (r) => r.requests)
        const retry = requests[1]?.messages ?? []
        expect(retry).toHaveLength(3)
        expect(retry[2]).toBeInstanceOf(UserMessage)
        expect((retry[2] as UserMessage).content).toContain("Do not announce: call the tool now")
        const after = requests[2]?.messages ?? []
        expect(after.some((m) => m._tag === "UserMessage" && m.content.includes("Do not announce"))).toBe(false)
        expect(after.some((m) => m._tag === "AssistantMessage" && m.content.startsWith("Let me"))).toBe(false)
      }).pipe(Effect.provide(scriptedAgent([
        Scripted.reply("Let me search the web for that…"),
        Scripted.toolCall("echo", { text: "sunny" }),
        Scripted.reply("It is sunny.")
      ], { tools: [echo] }))))

    it.effect("are accepted as the answer after ten retries", () =>
      Effect.gen(function*() {
        const events = yield* run()
        expect(events.filter((e) => e._tag === "HopReset")).toHaveLength(10)
        expect(completion(events)).toMatchObject({ text: "I'll check that.", stopReason: "Stop" })
      }).pipe(Effect.provide(scriptedAgent(
        Array.from({ length: 11 }, () => Scripted.reply("I'll check that.")),
        { tools: [echo] }
      ))))

    it.effect("are plain answers when no tool exists", () =>
      Effect.gen(function*() {
        const events = yield* run()
        expect(events.some((e) => e._tag === "HopReset")).toBe(false)
        expect(completion(events).text).toBe("Let me check that.")
      }).pipe(Effect.provide(scriptedAgent([Scripted.reply("Let me check that.")]))))
  })

  it.effect("forces the tool choice on the first model turn only", () =>
    Effect.gen(function*() {
      yield* run({ toolChoice: "required" })
      const requests = yield* Effect.flatMap(Scripted.ScriptedChatModel, (r) => r.requests)
      expect(requests.map((r) => r.toolChoice)).toEqual(["required", "auto"])
    }).pipe(Effect.provide(scriptedAgent([Scripted.toolCall("echo", { text: "x" }), Scripted.reply("ok")], {
      tools: [echo]
    }))))

  it.effect("asks the approval gate, and tells the model about a denial", () =>
    Effect.gen(function*() {
      const events = yield* run()
      const finished = events.find((e) => e._tag === "ToolCallFinished")
      expect(finished).toMatchObject({ result: { isError: true, content: "echo was not run: no tools today" } })
      expect(completion(events).text).toBe("understood")
    }).pipe(Effect.provide(scriptedAgent([Scripted.toolCall("echo", { text: "x" }), Scripted.reply("understood")], {
      tools: [echo],
      approval: ApprovalLive.deny("no tools today")
    }))))

  it.effect("measures tool duration on the clock", () =>
    Effect.gen(function*() {
      const events = yield* run()
      const finished = events.find((e) => e._tag === "ToolCallFinished")
      expect(finished?._tag === "ToolCallFinished" && finished.durationMillis).toBe(0)
    }).pipe(Effect.provide(scriptedAgent([Scripted.toolCall("echo", { text: "x" }), Scripted.reply("ok")], {
      tools: [echo]
    }))))

  it.effect("fails with the model's typed error", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(run())
      expect(error).toEqual(new ModelError({ reason: "Transport", detail: "connection reset" }))
    }).pipe(Effect.provide(scriptedAgent([
      [...Scripted.text("partial"), Scripted.fail(new ModelError({ reason: "Transport", detail: "connection reset" }))]
    ]))))

  it.effect("fails with every failure when the model's stream dies and its clean-up dies too", () =>
    Effect.gen(function*() {
      const crash = new Error("the model crashed")
      const cleanup = new Error("its clean-up crashed too")
      const model: ChatModelService = {
        info: Effect.succeed({ name: "broken", backend: "test" }),
        stream: () => Stream.die(crash).pipe(Stream.ensuring(Effect.die(cleanup)))
      }
      const agent = AgentLive.layer().pipe(
        Layer.provideMerge(Layer.mergeAll(Layer.succeed(ChatModel, model), ToolRegistryLive.layer(), ApprovalLive.autoApprove))
      )
      const exit = yield* Effect.exit(run().pipe(Effect.provide(agent)))
      const defects = Exit.isFailure(exit) ? Chunk.toReadonlyArray(Cause.defects(exit.cause)) : []
      expect(defects.map((defect) => (defect instanceof Error ? defect.message : String(defect)))).toEqual([crash.message, cleanup.message])
    }))

  describe("interruption", () => {
    it.effect("stops a generation mid-stream at once", () =>
      Effect.gen(function*() {
        const agent = yield* Agent
        const seen = yield* Ref.make<ReadonlyArray<AgentEvent>>([])
        const firstDelta = yield* Deferred.make<void>()
        const fiber = yield* agent.run({ messages: question }).pipe(
          Stream.runForEach((event) =>
            Effect.zipRight(Ref.update(seen, (all) => [...all, event]), Deferred.succeed(firstDelta, undefined))
          ),
          Effect.fork
        )
        yield* Deferred.await(firstDelta)
        // The model now sleeps for a minute on the TestClock: the clock never moves, so only interruption ends it.
        const exit = yield* Fiber.interrupt(fiber)
        expect(Exit.isInterrupted(exit)).toBe(true)
        expect(tags(yield* Ref.get(seen))).toEqual(["TextDelta"])
      }).pipe(Effect.provide(scriptedAgent([[...Scripted.text("Hel"), Scripted.delay("1 minute"), ...Scripted.text("lo")]]))))

    it.effect("stops a model that has not sent anything yet (a long prompt) at once", () =>
      Effect.gen(function*() {
        const agent = yield* Agent
        const seen = yield* Ref.make<ReadonlyArray<AgentEvent>>([])
        const fiber = yield* agent.run({ messages: question }).pipe(
          Stream.runForEach((event) => Ref.update(seen, (all) => [...all, event])),
          Effect.fork
        )
        // The model sleeps for a minute before its first event; half of it passes, then the reader is interrupted.
        // Were the sleep not interruptible, the interruption would wait for a clock that moves no further.
        yield* TestClock.adjust("30 seconds")
        const exit = yield* Fiber.interrupt(fiber)
        expect(Exit.isInterrupted(exit)).toBe(true)
        expect(yield* Ref.get(seen)).toEqual([])
      }).pipe(Effect.provide(scriptedAgent([[Scripted.delay("1 minute"), ...Scripted.text("Hello")]]))))

    it.effect("interrupts a running tool and appends nothing for its hop", () =>
      Effect.gen(function*() {
        const toolInterrupted = yield* Deferred.make<void>()
        const slow = Tool.make({
          name: "slow",
          description: "Never finishes.",
          handler: () => Effect.never.pipe(Effect.onInterrupt(() => Deferred.succeed(toolInterrupted, undefined)))
        })
        yield* Effect.gen(function*() {
          const agent = yield* Agent
          const started = yield* Deferred.make<void>()
          const seen = yield* Ref.make<ReadonlyArray<AgentEvent>>([])
          const fiber = yield* agent.run({ messages: question }).pipe(
            Stream.runForEach((event) =>
              Effect.zipRight(
                Ref.update(seen, (all) => [...all, event]),
                event._tag === "ToolCallStarted" && event.call.name === "slow"
                  ? Deferred.succeed(started, undefined)
                  : Effect.void
              )
            ),
            Effect.fork
          )
          yield* Deferred.await(started)
          yield* Fiber.interrupt(fiber)
          expect(yield* Deferred.isDone(toolInterrupted)).toBe(true)
          const events = yield* Ref.get(seen)
          expect(tags(events)).toEqual([
            "ToolCallStarted",
            "ToolCallFinished",
            "MessagesAppended",
            "ToolCallStarted"
          ])
          expect(hasNoDanglingToolCalls([...question, ...appended(events)])).toBe(true)
        }).pipe(Effect.provide(
          scriptedAgent([Scripted.toolCall("echo", { text: "a" }), Scripted.toolCall("slow", {})], {
            tools: [echo, slow]
          })
        ))
      }))
  })
})

const callOf = (name: string, args: unknown, id: string) => new ToolCall({ id, name, arguments: JSON.stringify(args) })
