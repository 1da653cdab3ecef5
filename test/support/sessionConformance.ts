/**
 * The `Session` contract as a suite, run unchanged on every implementation:
 * a harness gives a session on {@link conversationModel} with the `bash`
 * tool in a sandbox, whose approvals a given gate answers, and can restart
 * whatever serves it.
 */
import { layer } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, Ref, Stream } from "effect"
import { type Approval, ApprovalLive, Session } from "easyai"
import { expect } from "vitest"
import { collect } from "./agent.js"
import { pidsWith, processesWith, stillRunning, uniqueSleep } from "./processes.js"

/** The key a conversation is resumed by, and how to make it survive a restart. */
export interface Resumable {
  readonly key: string
  /** What a program does after each turn to keep the conversation (nothing when the server keeps it). */
  readonly save: Effect.Effect<void>
}

/** The conversation's key. */
export class SessionKey extends Context.Tag("test/SessionKey")<SessionKey, Resumable>() {}

/** How a suite reaches one implementation. */
export interface Harness {
  /** A new session, or the one saved under `resume`, whose approvals `approval` answers. */
  readonly session: (approval: Layer.Layer<Approval>, resume?: string) => Layer.Layer<Session | SessionKey, unknown>
  /** Stops whatever serves the sessions and starts it again. */
  readonly restart: Effect.Effect<void, unknown>
}

/** The harness of the suite being run. */
export class SessionHarness extends Context.Tag("test/SessionHarness")<SessionHarness, Harness>() {}

/** An approval gate that records what it is asked and approves every call whose id does not end in `no`. */
const recordingApproval = Effect.map(Ref.make<ReadonlyArray<string>>([]), (asked) => ({
  asked,
  layer: ApprovalLive.policy({
    ask: ({ call }) => Effect.as(Ref.update(asked, (all) => [...all, call.id]), !call.id.endsWith("no"))
  })
}))

/** Runs `use` on a new session (or `resume`d one) of the harness, approving as {@link recordingApproval}. */
const withSession = <A, E>(
  use: (session: Session["Type"], asked: Ref.Ref<ReadonlyArray<string>>) => Effect.Effect<A, E, SessionKey>,
  resume?: string
) =>
  Effect.gen(function*() {
    const harness = yield* SessionHarness
    const approval = yield* recordingApproval
    return yield* Effect.flatMap(Session, (session) => use(session, approval.asked)).pipe(
      Effect.provide(harness.session(approval.layer, resume))
    )
  })

/** The suite, on the harness `harness` builds. */
export const sessionConformance = (name: string, harness: Layer.Layer<SessionHarness, unknown>) =>
  layer(harness, { excludeTestServices: true, timeout: "180 seconds" })(`Session conformance: ${name}`, (it) => {
    it.effect("a turn streams the events of the loop and ends with TurnComplete; chat returns it; history keeps both turns", () =>
      withSession((session) =>
        Effect.gen(function*() {
          const events = yield* collect(session.stream("echo hello remote world"))
          const last = events.at(-1)
          expect(last?._tag).toBe("TurnComplete")
          expect(last?._tag === "TurnComplete" ? last.text : "").toBe("hello remote world")
          const deltas = events.flatMap((event) => (event._tag === "TextDelta" ? [event.text] : []))
          expect(deltas.join("")).toBe("hello remote world")
          expect(events.some((event) => event._tag === "MessagesAppended")).toBe(true)
          const turn = yield* session.chat("echo again")
          expect(turn.text).toBe("again")
          expect(turn.stopReason).toBe("Stop")
          const history = yield* session.history
          expect(history.map((message) => message._tag)).toEqual(["UserMessage", "AssistantMessage", "UserMessage", "AssistantMessage"])
          expect(history[0]?.content).toBe("echo hello remote world")
          expect(history[3]?.content).toBe("again")
        })
      ), 60_000)

    it.effect("reset clears the history; setSystem replaces the prompt and clears it; refreshSystem keeps it", () =>
      withSession((session) =>
        Effect.gen(function*() {
          yield* session.chat("echo one")
          yield* session.reset
          expect(yield* session.history).toEqual([])
          yield* session.chat("echo two")
          yield* session.setSystem("You are a terse assistant.")
          expect(yield* session.history).toEqual([])
          expect(yield* session.system).toContain("You are a terse assistant.")
          expect(yield* session.renderSystem).toContain("You are a terse assistant.")
          yield* session.chat("echo three")
          yield* session.refreshSystem
          expect((yield* session.history).length).toBe(2)
          expect(yield* session.system).toContain("You are a terse assistant.")
        })
      ), 60_000)

    it.effect("a tool call is put to the approval gate: approved it runs, declined the model reads why", () =>
      withSession((session, asked) =>
        Effect.gen(function*() {
          const approved = yield* collect(session.stream("time yes"))
          const ran = approved.find((event) => event._tag === "ToolCallFinished")
          expect(ran?._tag === "ToolCallFinished" && ran.call.name).toBe("datetime")
          expect(ran?._tag === "ToolCallFinished" && ran.result.isError).toBe(false)
          expect(approved.some((event) => event._tag === "ToolCallStarted" && event.call.id === "call_yes")).toBe(true)
          const declined = yield* collect(session.stream("time no"))
          const refused = declined.find((event) => event._tag === "ToolCallFinished")
          expect(refused?._tag === "ToolCallFinished" && refused.result.isError).toBe(true)
          expect(refused?._tag === "ToolCallFinished" ? refused.result.content : "").toContain(ApprovalLive.declinedReason)
          const answer = declined.at(-1)
          expect(answer?._tag === "TurnComplete" ? answer.text : "").toContain("tool said:")
          expect(yield* Ref.get(asked)).toEqual(["call_yes", "call_no"])
        })
      ), 60_000)

    it.effect("interrupting a turn stops its running tool, takes the unfinished turn back, and the session goes on", () =>
      withSession((session) =>
        Effect.gen(function*() {
          yield* session.chat("echo before")
          const marker = uniqueSleep()
          const turn = yield* Effect.fork(Stream.runDrain(session.stream(`slow ${marker}`)))
          const pids = yield* processesWith(`sleep ${marker}`)
          yield* Fiber.interrupt(turn)
          expect(yield* stillRunning(pids)).toEqual([])
          expect(pidsWith(`sleep ${marker}`)).toEqual([])
          expect((yield* session.chat("echo after")).text).toBe("after")
          const history = yield* session.history
          expect(history.map((message) => message.content)).toEqual(["echo before", "before", "echo after", "after"])
        })
      ), 90_000)

    it.effect("a conversation resumes after a restart, and the model is sent all of it", () =>
      Effect.gen(function*() {
        const key = yield* withSession((session) =>
          Effect.gen(function*() {
            yield* session.chat("echo one")
            yield* session.chat("echo two")
            const resumable = yield* SessionKey
            yield* resumable.save
            return resumable.key
          })
        )
        yield* Effect.flatMap(SessionHarness, (harness) => harness.restart)
        yield* withSession((session) =>
          Effect.gen(function*() {
            expect((yield* session.history).map((message) => message.content)).toEqual(["echo one", "one", "echo two", "two"])
            expect((yield* session.chat("count")).text).toBe("you said 3 things")
          }), key)
      }), 120_000)
  })
