import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Ref, Schema } from "effect"
import { Approval, ApprovalLive, type Decision, Session, SessionStack, Tool, ToolCall } from "easyai"
import { ScriptedChatModel } from "easyai/testing"

const toolCall = (name: string) => new ToolCall({ id: `call_${name}`, name, arguments: "{}" })

/** An `ask` that records what it was asked and answers from `answers`, in order (no once they run out). */
const scriptedAsk = (answers: ReadonlyArray<boolean>) =>
  Effect.gen(function*() {
    const asked = yield* Ref.make<ReadonlyArray<ApprovalLive.ApprovalRequest>>([])
    const left = yield* Ref.make(answers)
    const ask = (request: ApprovalLive.ApprovalRequest) =>
      Effect.zipRight(
        Ref.update(asked, (all) => [...all, request]),
        Ref.modify(left, ([next, ...rest]) => [next ?? false, rest])
      )
    return { ask, asked: Ref.get(asked) }
  })

/** The decisions of `gate` for `names`, in order. */
const decide = (gate: Layer.Layer<Approval>, ...names: ReadonlyArray<string>) =>
  Effect.flatMap(Approval, (approval) => Effect.forEach(names, (name) => approval.check(toolCall(name)))).pipe(
    Effect.provide(gate)
  )

const tags = (decisions: ReadonlyArray<Decision>) => decisions.map((decision) => decision._tag)

describe("ApprovalLive.policy", () => {
  it.effect("asks the person: yes approves, no denies with the declined reason", () =>
    Effect.gen(function*() {
      const { ask, asked } = yield* scriptedAsk([true, false])
      const [yes, no] = yield* decide(ApprovalLive.policy({ ask }), "sdk__echo", "bash")
      expect(yes?._tag).toBe("Approved")
      expect(no).toEqual({ _tag: "Denied", reason: ApprovalLive.declinedReason })
      expect(ApprovalLive.declinedReason).toBe("the user declined this tool call")
      const requests = yield* asked
      expect(requests.map((request) => request.displayName)).toEqual(["sdk.echo", "bash"])
      expect(requests.map((request) => request.call.name)).toEqual(["sdk__echo", "bash"])
      expect(requests[0]?.call.id).toBe("call_sdk__echo")
    }))

  it.effect("auto-approves a server's tool by alias.tool, and a local tool by its name, without asking", () =>
    Effect.gen(function*() {
      const { ask, asked } = yield* scriptedAsk([])
      const decisions = yield* decide(
        ApprovalLive.policy({ autoApprove: ["sdk.echo", "bash"], ask }),
        "sdk__echo",
        "bash",
        "sdk__add",
        "sdk__echo_all",
        "bash2"
      )
      expect(tags(decisions)).toEqual(["Approved", "Approved", "Denied", "Denied", "Denied"])
      expect((yield* asked).map((request) => request.displayName)).toEqual(["sdk.add", "sdk.echo_all", "bash2"])
    }))

  it.effect("auto-approves by the registered name too", () =>
    Effect.gen(function*() {
      const { ask, asked } = yield* scriptedAsk([])
      const decisions = yield* decide(ApprovalLive.policy({ autoApprove: ["sdk__echo"], ask }), "sdk__echo", "sdk__add")
      expect(tags(decisions)).toEqual(["Approved", "Denied"])
      expect((yield* asked).map((request) => request.displayName)).toEqual(["sdk.add"])
    }))

  it.effect("alias.* approves every tool of that server, and nothing else", () =>
    Effect.gen(function*() {
      const { ask, asked } = yield* scriptedAsk([])
      const decisions = yield* decide(
        ApprovalLive.policy({ autoApprove: ["sdk.*"], ask }),
        "sdk__echo",
        "sdk__add",
        "sdkthing",
        "docs__x",
        "sdk-2__echo",
        "sdk"
      )
      expect(tags(decisions)).toEqual(["Approved", "Approved", "Denied", "Denied", "Denied", "Denied"])
      expect((yield* asked).map((request) => request.displayName)).toEqual(["sdkthing", "docs.x", "sdk-2.echo", "sdk"])
    }))

  it.effect("* approves everything without asking", () =>
    Effect.gen(function*() {
      const { ask, asked } = yield* scriptedAsk([])
      const decisions = yield* decide(ApprovalLive.policy({ autoApprove: ["*"], ask }), "sdk__echo", "bash", "docs__x")
      expect(tags(decisions)).toEqual(["Approved", "Approved", "Approved"])
      expect(yield* asked).toEqual([])
    }))

  it.effect("without ask, a call that is not auto-approved is denied: no one is present", () =>
    Effect.gen(function*() {
      const [remote, local, approved] = yield* decide(
        ApprovalLive.policy({ autoApprove: ["datetime"] }),
        "sdk__echo",
        "bash",
        "datetime"
      )
      expect(remote?._tag === "Denied" ? remote.reason : "").toBe("no one is present to approve sdk.echo, and it is not auto-approved")
      expect(local?._tag === "Denied" ? local.reason : "").toContain("no one is present to approve bash")
      expect(approved?._tag).toBe("Approved")
      // An empty policy denies everything.
      expect(tags(yield* decide(ApprovalLive.policy({}), "datetime"))).toEqual(["Denied"])
    }))

  it.effect("deny() denies everything; autoApprove approves everything", () =>
    Effect.gen(function*() {
      const denied = yield* decide(ApprovalLive.deny(), "bash", "sdk__echo")
      expect(denied).toEqual([
        { _tag: "Denied", reason: "tool calls are disabled for this agent" },
        { _tag: "Denied", reason: "tool calls are disabled for this agent" }
      ])
      expect(yield* decide(ApprovalLive.deny("read-only agent"), "bash")).toEqual([{ _tag: "Denied", reason: "read-only agent" }])
      expect(tags(yield* decide(ApprovalLive.autoApprove, "bash", "sdk__echo"))).toEqual(["Approved", "Approved"])
    }))

  it("covers: name, display name, alias.* and *", () => {
    expect(ApprovalLive.covers("*", "bash", "bash")).toBe(true)
    expect(ApprovalLive.covers("bash", "bash", "bash")).toBe(true)
    expect(ApprovalLive.covers("docs.search", "docs__search", "docs.search")).toBe(true)
    expect(ApprovalLive.covers("docs__search", "docs__search", "docs.search")).toBe(true)
    expect(ApprovalLive.covers("docs.*", "docs__search", "docs.search")).toBe(true)
    expect(ApprovalLive.covers("docs.*", "docsearch", "docsearch")).toBe(false)
    expect(ApprovalLive.covers("docs.*", "other__search", "other.search")).toBe(false)
    expect(ApprovalLive.covers("docs.search", "docs__other", "docs.other")).toBe(false)
    expect(ApprovalLive.covers("bash", "bash2", "bash2")).toBe(false)
  })
})

describe("approval through the agent", () => {
  /** A tool that counts its runs. */
  const recording = (runs: Ref.Ref<number>) =>
    Tool.make({
      name: "record",
      description: "Records that it ran.",
      parameters: Schema.Struct({ note: Schema.String }),
      handler: () => Effect.as(Ref.update(runs, (n) => n + 1), "recorded")
    })

  const run = (approval: Layer.Layer<Approval>) =>
    Effect.gen(function*() {
      const runs = yield* Ref.make(0)
      const model = ScriptedChatModel.layer([
        ScriptedChatModel.toolCall("record", { note: "hi" }),
        ScriptedChatModel.reply("Done.")
      ])
      const stack = Layer.merge(
        SessionStack.layer({ model, approval, session: { withDefaultTools: false, tools: [recording(runs)] } }),
        model
      )
      return yield* Effect.gen(function*() {
        const turn = yield* Effect.flatMap(Session, (session) => session.chat("record something"))
        const requests = yield* Effect.flatMap(ScriptedChatModel.ScriptedChatModel, (recorder) => recorder.requests)
        const toolMessages = (requests[1]?.messages ?? []).filter((message) => message._tag === "ToolMessage")
        return { turn, toolMessages, runs: yield* Ref.get(runs) }
      }).pipe(Effect.provide(stack))
    })

  it.effect("a declined call does not run, and the model reads that the user declined", () =>
    Effect.gen(function*() {
      const { ask, asked } = yield* scriptedAsk([false])
      const { runs, toolMessages, turn } = yield* run(ApprovalLive.policy({ ask }))
      expect(runs).toBe(0)
      expect(toolMessages).toHaveLength(1)
      expect(toolMessages[0]).toMatchObject({ name: "record", isError: true })
      expect(toolMessages[0]?.content).toContain("the user declined")
      expect(toolMessages[0]?.content).toBe("record was not run: the user declined this tool call")
      expect(turn.text).toBe("Done.")
      expect((yield* asked).map((request) => request.displayName)).toEqual(["record"])
    }))

  it.effect("an approved call runs (the control)", () =>
    Effect.gen(function*() {
      const { ask } = yield* scriptedAsk([true])
      const { runs, toolMessages } = yield* run(ApprovalLive.policy({ ask }))
      expect(runs).toBe(1)
      expect(toolMessages[0]).toMatchObject({ name: "record", isError: false, content: "recorded" })
    }))

  it.effect("ask: () => Effect.succeed(false) in a SessionStack denies every call", () =>
    Effect.gen(function*() {
      const { runs, toolMessages } = yield* run(ApprovalLive.policy({ ask: () => Effect.succeed(false) }))
      expect(runs).toBe(0)
      expect(toolMessages[0]?.content).toContain("the user declined")
    }))
})
