/**
 * `/rpc` on a real server socket: behind the API key and the body limits,
 * hostile input answered without harm, sessions bounded and expiring, and
 * a turn stopped by another caller.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, type Layer, Option, Redacted, Stream } from "effect"
import { type Approval, ApprovalLive, directoryStore, ModelError, RemoteSession, Session } from "easyai"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { conversationModel } from "../../support/conversationModel.js"
import { processesWith, stillRunning, uniqueSleep } from "../../support/processes.js"
import { baseUrl, send, served } from "../../support/server.js"
import { tempDir } from "../../support/tempDir.js"

const key = "rpc-test-key"

/** A server on the conversation model, bash in a temp sandbox, with `agentSessions` options. */
const server = (agentSessions: Record<string, unknown> = {}, apiKey?: string) =>
  served({
    model: conversationModel,
    host: { root: tempDir(), bash: true },
    preamble: { timeZone: "UTC" },
    server: { agentSessions, ...(apiKey === undefined ? {} : { apiKey: Redacted.make(apiKey) }) }
  })

/** Opens a remote session on the served server and runs `use` on it. */
const remote = <A, E, R>(
  use: Effect.Effect<A, E, R>,
  options: { readonly apiKey?: string; readonly resume?: string; readonly approval?: Layer.Layer<Approval> } = {}
) =>
  Effect.flatMap(baseUrl, (url) => Effect.provide(use, RemoteSession.layer({ url, ...options })))

/** The failure of `effect`, which must fail. */
const failureOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.exit(effect), (exit) =>
    Exit.isFailure(exit) ? Effect.succeed(Option.getOrUndefined(Cause.failureOption(exit.cause))) : Effect.die("it succeeded"))

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error))

describe("/rpc", () => {
  it.live("needs the API key when the server has one; a wrong one gets a one-line reason", () =>
    Effect.gen(function*() {
      const refused = yield* failureOf(remote(Effect.void, { apiKey: "wrong" }))
      expect((refused as ModelError)._tag).toBe("ModelError")
      expect(message(refused)).toContain("refused the API key (401)")
      const none = yield* failureOf(remote(Effect.void))
      expect(message(none)).toContain("401")
      const turn = yield* remote(Effect.flatMap(Session, (session) => session.chat("echo with the key")), { apiKey: key })
      expect(turn.text).toBe("with the key")
    }).pipe(Effect.provide(server({}, key))), 30_000)

  it.live("hostile bodies get a clear status and the server stays up", () =>
    Effect.gen(function*() {
      const garbage = yield* send("POST", "/rpc", { body: "this is not ndjson\n" })
      expect(garbage.status).toBe(200)
      expect(garbage.text).toContain("is not valid JSON")
      const deep = yield* send("POST", "/rpc", { body: `${"[".repeat(300)}${"]".repeat(300)}\n` })
      expect(deep.status).toBe(400)
      const large = yield* send("POST", "/rpc", { body: "x".repeat(2048) })
      expect(large.status).toBe(413)
      const badId = yield* failureOf(remote(Effect.void, { resume: "../../etc/passwd" }))
      expect(message(badId)).toContain("is not a session id")
      // Sent as is, past the client's check, it is refused by the protocol's schema before any path is built from it.
      const open = (resume: string) =>
        `${JSON.stringify({ _tag: "Request", id: "1", tag: "Open", payload: { resume }, headers: [] })}\n`
      const traversal = yield* send("POST", "/rpc", { body: open("../../../etc") })
      expect(traversal.text).toContain("Failure")
      expect(traversal.text).toContain("Expected A session id: 32 lowercase hex digits")
      const turn = yield* remote(Effect.flatMap(Session, (session) => session.chat("echo still up")))
      expect(turn.text).toBe("still up")
    }).pipe(Effect.provide(served({
      model: conversationModel,
      server: { limits: { maxBytes: 1024 } }
    }))), 30_000)

  it.live("an unknown session cannot be resumed: the reason says it was closed or expired", () =>
    Effect.gen(function*() {
      const missing = yield* failureOf(remote(Effect.void, { resume: "0123456789abcdef0123456789abcdef" }))
      expect(message(missing)).toContain("closed or expired")
    }).pipe(Effect.provide(server())), 30_000)

  it.live("sessions are bounded: opening one more evicts the least recently used", () =>
    Effect.gen(function*() {
      const ids = yield* Effect.forEach([1, 2, 3], (n) =>
        remote(Effect.gen(function*() {
          yield* Effect.flatMap(Session, (session) => session.chat(`echo ${n}`))
          return (yield* RemoteSession.RemoteSession).id
        })))
      const evicted = yield* failureOf(remote(Effect.void, { resume: ids[0] ?? "" }))
      expect(message(evicted)).toContain("closed or expired")
      const kept = yield* remote(Effect.flatMap(Session, (session) => session.history), { resume: ids[2] ?? "" })
      expect(kept.map((entry) => entry.content)).toEqual(["echo 3", "3"])
    }).pipe(Effect.provide(server({ maxSessions: 2 }))), 30_000)

  it.live("an idle session expires; one in use does not", () =>
    Effect.gen(function*() {
      const id = yield* remote(Effect.map(RemoteSession.RemoteSession, (opened) => opened.id))
      // Used every 200 ms for 2 s (four idle lifetimes), it stays: resuming it counts as use.
      for (let attempt = 0; attempt < 10; attempt++) {
        yield* Effect.sleep("200 millis")
        yield* remote(Effect.void, { resume: id })
      }
      // Left alone longer than the lifetime plus one sweep (every second), it goes. Each probe is a use, so they are spaced.
      let gone = false
      for (let attempt = 0; attempt < 10 && !gone; attempt++) {
        yield* Effect.sleep("2 seconds")
        gone = Exit.isFailure(yield* Effect.exit(remote(Effect.void, { resume: id })))
      }
      expect(gone).toBe(true)
    }).pipe(Effect.provide(server({ idleTimeout: "500 millis" }))), 40_000)

  it.live("Interrupt from another caller stops the turn and its running tool", () =>
    Effect.gen(function*() {
      const marker = uniqueSleep()
      const exit = yield* remote(Effect.gen(function*() {
        const id = (yield* RemoteSession.RemoteSession).id
        const session = yield* Session
        const turn = yield* Effect.fork(Stream.runDrain(session.stream(`slow ${marker}`)))
        const pids = yield* processesWith(`sleep ${marker}`)
        const stopped = yield* remote(Effect.flatMap(RemoteSession.RemoteSession, (other) => other.interrupt), { resume: id })
        expect(stopped).toBe(true)
        const exit = yield* Fiber.await(turn)
        expect(yield* stillRunning(pids)).toEqual([])
        return exit
      }))
      expect(Exit.isInterrupted(exit)).toBe(true)
    }).pipe(Effect.provide(server())), 60_000)

  it.live("a turn that finds every generation slot busy fails at once with a retryable error", () =>
    Effect.gen(function*() {
      const marker = uniqueSleep()
      const busy = yield* remote(Effect.gen(function*() {
        const session = yield* Session
        const running = yield* Effect.fork(Stream.runDrain(session.stream(`slow ${marker}`)))
        const pids = yield* processesWith(`sleep ${marker}`)
        const refused = yield* failureOf(remote(Effect.flatMap(Session, (other) => other.chat("echo me too"))))
        yield* Fiber.interrupt(running)
        expect(yield* stillRunning(pids)).toEqual([])
        return refused
      }))
      expect(busy).toBeInstanceOf(ModelError)
      expect(busy instanceof ModelError && busy.isRetryable).toBe(true)
      expect(message(busy)).toContain("the server is busy")
    }).pipe(Effect.provide(served({
      model: conversationModel,
      host: { root: tempDir(), bash: true },
      server: { parallel: 1, queueLimit: 0 }
    }))), 60_000)

  it.live("an approval the caller does not give in time denies the call; the late answer does not break the turn", () =>
    Effect.gen(function*() {
      const slow = ApprovalLive.policy({ ask: () => Effect.as(Effect.sleep("1 second"), true) })
      const turn = yield* remote(Effect.flatMap(Session, (session) => session.chat("time yes")), { approval: slow })
      expect(turn.text).toContain("the caller did not answer")
    }).pipe(Effect.provide(server({ approvalTimeout: "200 millis" }))), 30_000)

  it.live("a remote turn's tool calls count in /metrics", () =>
    Effect.gen(function*() {
      yield* remote(Effect.flatMap(Session, (session) => session.chat("time yes")))
      expect((yield* send("GET", "/metrics")).text).toMatch(/^easyai_tool_calls_total 1$/m)
    }).pipe(Effect.provide(server())), 30_000)

  it.live("a remote session's loop takes the server's loop options, as the chat's does", () =>
    Effect.gen(function*() {
      const turn = yield* remote(Effect.flatMap(Session, (session) => session.chat("time yes")))
      expect(turn.stopReason).toBe("HopLimitReached")
    }).pipe(Effect.provide(served({ model: conversationModel, agent: { maxToolHops: 0 } }))), 30_000)

  it.live("A session is saved from its opening; Close ends it, even mid-turn: the turn and its tool stop, and its saved conversation is gone for good", () =>
    Effect.gen(function*() {
      const marker = uniqueSleep()
      const exit = yield* remote(Effect.gen(function*() {
        const id = (yield* RemoteSession.RemoteSession).id
        const session = yield* Session
        // Saved from the start, so even an unused session survives a restart.
        expect(existsSync(join(sessions, id))).toBe(true)
        yield* session.chat("echo saved")
        const turn = yield* Effect.fork(Stream.runDrain(session.stream(`slow ${marker}`)))
        const pids = yield* processesWith(`sleep ${marker}`)
        yield* remote(Effect.flatMap(RemoteSession.RemoteSession, (other) => other.close), { resume: id })
        const exit = yield* Fiber.await(turn)
        expect(yield* stillRunning(pids)).toEqual([])
        expect(existsSync(join(sessions, id))).toBe(false)
        expect(message(yield* failureOf(remote(Effect.void, { resume: id })))).toContain("closed or expired")
        return exit
      }))
      expect(Exit.isInterrupted(exit)).toBe(true)
    }).pipe(Effect.provide(server({ store: directoryStore(sessions) }))), 60_000)
})

const sessions = tempDir()
