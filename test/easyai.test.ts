import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, FiberId, Layer, Schema, Stream } from "effect"
import {
  ChatModel,
  ChatModelError,
  type ChatRequest,
  ConfigurationError,
  ContextOverflow,
  EasyAiError,
  easyai,
  isChatModelError,
  isEasyAiError,
  ModelError,
  Tool,
  ToolResult
} from "easyai"
import { ScriptedChatModel as Scripted } from "easyai/testing"
import { presets } from "../src/domain/Sampling.js"
import { rejectionOf } from "../src/EasyAiError.js"
import { tempDir } from "./support/tempDir.js"
import { echo } from "./support/tools.js"

describe("easyai façade", () => {
  it("answers a question with ask", async () => {
    const agent = easyai.withModel(Scripted.layer([Scripted.reply("4")]))
    expect(await agent.ask("2+2?")).toBe("4")
    expect((await agent.history()).map((m) => m._tag)).toEqual(["UserMessage", "AssistantMessage"])
    await agent.close()
  })

  it.effect("answers from Effect with askEffect", () =>
    Effect.gen(function*() {
      const agent = easyai.withModel(Scripted.layer([Scripted.reply("from Effect")]))
      expect(yield* agent.askEffect("hi")).toBe("from Effect")
      yield* Effect.promise(() => agent.close())
    }))

  it("streams the events of a turn", async () => {
    const agent = easyai.withModel(Scripted.layer([Scripted.toolCall("echo", { text: "x" }), Scripted.reply("done")]))
      .addTool(echo)
    const seen: Array<string> = []
    for await (const event of agent.stream("go")) seen.push(event._tag)
    expect(seen).toEqual([
      "ToolCallStarted",
      "ToolCallFinished",
      "MessagesAppended",
      "TextDelta",
      "MessagesAppended",
      "TurnComplete"
    ])
    await agent.close()
  })

  it("configures the session with fluent setters before the start", async () => {
    const agent = easyai.withModel(Scripted.layer([Scripted.reply("ok")]))
      .system("Be terse.")
      .systemAppend("Always answer in English.")
      .withDefaultTools(false)
      .preamble({ injectDateTime: false })
    expect(await agent.renderSystem()).toBe(
      "Be terse.\n\nAlways answer in English.\n\n# TOOLS\nYou have no tools in this session. " +
        "Answer from what you know, and say so when you are not certain."
    )
    await agent.close()
  })

  it("confines the host tools as isolate and toolEnv say", async () => {
    const saved = { key: process.env["EASYAI_API_KEY"], token: process.env["FACADE_TOOL_TOKEN"] }
    process.env["EASYAI_API_KEY"] = "sk-facade-planted"
    process.env["FACADE_TOOL_TOKEN"] = "for-tools"
    try {
      const agent = easyai.withModel(Scripted.layer([Scripted.toolCall("bash", { command: "env" }), Scripted.reply("done")]))
        .withDefaultTools(false)
        .sandbox(tempDir())
        .allowBash()
        .isolate("off")
        .toolEnv("FACADE_TOOL_TOKEN")
      const results: Array<string> = []
      for await (const event of agent.stream("go")) if (event._tag === "ToolCallFinished") results.push(event.result.content)
      expect(results).toHaveLength(1)
      expect(results[0]).toContain("FACADE_TOOL_TOKEN=for-tools")
      expect(results[0]).not.toContain("sk-facade-planted")
      await agent.close()
      const refused = easyai.withModel(Scripted.layer([Scripted.reply("never")])).sandbox(tempDir()).toolEnv("EASYAI_API_KEY")
      await expect(refused.ask("hi")).rejects.toThrow("EASYAI_API_KEY cannot be passed to tools")
      await refused.close()
    } finally {
      if (saved.key === undefined) delete process.env["EASYAI_API_KEY"]
      else process.env["EASYAI_API_KEY"] = saved.key
      if (saved.token === undefined) delete process.env["FACADE_TOOL_TOKEN"]
      else process.env["FACADE_TOOL_TOKEN"] = saved.token
    }
  })

  it("applies the preset and sampling overrides to each question", async () => {
    const seen: Array<ChatRequest> = []
    const agent = easyai.withModel(recording([Scripted.reply("a"), Scripted.reply("b"), Scripted.reply("c")], seen))
    await agent.ask("default")
    agent.preset("creative").sampling({ temperature: 0.9 })
    await agent.ask("creative")
    await agent.ask("deterministic", { preset: "deterministic", sampling: { temperature: 0 } })
    expect(seen.map((request) => ({ ...request.sampling }))).toEqual([
      { ...presets.precise },
      { ...presets.creative, temperature: 0.9 },
      { ...presets.deterministic }
    ])
    await agent.close()
  })

  it("keeps shaping the conversation after the start: addTool and system", async () => {
    const agent = easyai.withModel(Scripted.layer([
      Scripted.reply("first"),
      Scripted.toolCall("shout", { text: "hey" }),
      Scripted.reply("shouted"),
      Scripted.reply("fresh")
    ]))
    expect(await agent.ask("one")).toBe("first")
    const shout = Tool.make({
      name: "shout",
      description: "Upper-case the text.",
      parameters: Schema.Struct({ text: Schema.String }),
      systemAddendum: "Shout only when asked.",
      handler: ({ text }) => Effect.succeed(ToolResult.ok(text.toUpperCase()))
    })
    agent.addTool(shout)
    expect(await agent.ask("two")).toBe("shouted")
    const history = await agent.history()
    expect(history.find((m) => m._tag === "ToolMessage")).toMatchObject({ content: "HEY" })
    expect(await agent.renderSystem()).toContain("Shout only when asked.")
    agent.system("You are new here.")
    expect(await agent.ask("three")).toBe("fresh")
    expect(await agent.history()).toHaveLength(2)
    await agent.close()
  })

  it("refuses structural changes after the start with a typed error", async () => {
    const agent = easyai.withModel(Scripted.layer([Scripted.reply("ok")]))
    await agent.ask("hi")
    expect(() => agent.noBuiltinSystem()).toThrow(ConfigurationError)
    expect(() => agent.toolMode("unified")).toThrow("toolMode() must be called before the agent's first question")
    await agent.close()
  })

  it("rejects with the model's typed error", async () => {
    const failure = new ModelError({ reason: "RateLimited", detail: "slow down" })
    const agent = easyai.withModel(Scripted.layer([[Scripted.fail(failure)]]))
    await expect(agent.ask("hi")).rejects.toEqual(failure)
    await agent.close()
  })

  it("rejects with an EasyAiError keeping every failure when a crash and its clean-up's crash combine", async () => {
    const crash = new Error("the model crashed")
    const cleanup = new Error("its clean-up crashed too")
    // A model whose stream dies, and whose clean-up then dies as well: two things went wrong.
    const model = Layer.succeed(ChatModel, {
      info: Effect.succeed({ name: "broken", backend: "test" }),
      stream: () => Stream.die(crash).pipe(Stream.ensuring(Effect.die(cleanup)))
    })
    const agent = easyai.withModel(model)
    const rejection: unknown = await agent.ask("hi").then(() => undefined, (error: unknown) => error)
    expect(rejection).toBeInstanceOf(EasyAiError)
    if (!isEasyAiError(rejection)) throw new Error("not an EasyAiError")
    expect(rejection.error).toMatchObject({ message: "the model crashed" })
    expect(rejection.failures).toMatchObject([{ message: "the model crashed" }, { message: "its clean-up crashed too" }])
    expect(rejection.message).toContain("2 failures at once")
    expect(rejection.message).toContain("the model crashed")
    expect(rejection.message).toContain("its clean-up crashed too")
    await agent.close()
  })

  it("keeps a failure and a defect together, and a single failure as it is", () => {
    const failure = new ModelError({ reason: "Transport", detail: "connection reset" })
    const defect = new Error("a finalizer died")
    const combined = rejectionOf(Cause.sequential(Cause.fail(failure), Cause.die(defect)))
    if (!isEasyAiError(combined)) throw new Error("not an EasyAiError")
    expect(combined.error).toBe(failure)
    expect(combined.failures).toEqual([failure, defect])
    expect(Cause.isFailure(combined.cause) && Cause.isDie(combined.cause)).toBe(true)
    const parallel = rejectionOf(Cause.parallel(Cause.fail(failure), Cause.fail(new ModelError({ reason: "RateLimited" }))))
    expect(isEasyAiError(parallel) ? parallel.failures.length : 0).toBe(2)
    expect(rejectionOf(Cause.fail(failure))).toBe(failure)
    expect(Cause.isInterruptedException(rejectionOf(Cause.interrupt(FiberId.none)))).toBe(true)
  })

  it("tells a ChatModel's errors apart with isChatModelError and decodes them with the ChatModelError Schema", () => {
    const overflow = new ContextOverflow({ promptTokens: 9000, contextSize: 4096 })
    expect(isChatModelError(new ModelError({ reason: "RateLimited" }))).toBe(true)
    expect(isChatModelError(overflow)).toBe(true)
    expect(isChatModelError(new ConfigurationError({ message: "no" }))).toBe(false)
    expect(isChatModelError({ _tag: "ModelError", reason: "RateLimited" })).toBe(false)
    const encoded = Schema.encodeSync(ChatModelError)(overflow)
    expect(Schema.decodeUnknownSync(ChatModelError)(encoded)).toEqual(overflow)
  })

  it("cancels the generation and the running tool when the signal aborts", async () => {
    let interrupted = false
    let markStarted: () => void = () => undefined
    const started = new Promise<void>((resolve) => (markStarted = resolve))
    const wait = Tool.make({
      name: "wait",
      description: "Waits forever.",
      handler: () =>
        Effect.sync(markStarted).pipe(
          Effect.zipRight(Effect.never),
          Effect.onInterrupt(() => Effect.sync(() => (interrupted = true)))
        )
    })
    const agent = easyai.withModel(Scripted.layer([Scripted.toolCall("wait", {}), Scripted.reply("never")]))
      .addTool(wait)
    const controller = new AbortController()
    const answer = agent.ask("go", { signal: controller.signal })
    await started
    controller.abort()
    await expect(answer).rejects.toThrow()
    expect(interrupted).toBe(true)
    expect(await agent.history()).toEqual([])
    await agent.close()
  })
})

/** A scripted model that also hands every request it receives to `seen`. */
const recording = (turns: ReadonlyArray<Scripted.Turn>, seen: Array<ChatRequest>) =>
  Layer.effect(
    ChatModel,
    Effect.map(ChatModel, (model) => ({
      ...model,
      stream: (request: ChatRequest) => {
        seen.push(request)
        return model.stream(request)
      }
    }))
  ).pipe(Layer.provide(Scripted.layer(turns)))
