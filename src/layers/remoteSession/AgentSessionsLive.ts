/**
 * The server's sessions for remote callers: each one a `SessionLive` on the
 * shared model, tools and composer, with an agent loop of its own whose
 * approval gate asks the caller (see `approvalBridge.ts`).
 *
 * - Bounded: at most `maxSessions` in memory. Opening one more evicts the
 *   least recently used session that is not running a turn (its saved
 *   conversation stays, so it can be resumed); when every one is running,
 *   the open is refused.
 * - Expiring: a session idle for `idleTimeout` is forgotten, and its saved
 *   conversation removed; so is a saved conversation nobody resumed within
 *   that time (after a restart, say).
 * - Persistent: with a `store`, the conversation is saved after every hop,
 *   every turn and every change, so a restarted server resumes it.
 *
 * @module
 */
import { Clock, Context, Deferred, Duration, Effect, Layer, Option, Queue, Ref, Schedule, Stream } from "effect"
import { randomBytes } from "node:crypto"
import { AgentSessionError, type RemoteTurnEvent } from "../../domain/AgentRpc.js"
import type { ChatMessage } from "../../domain/Message.js"
import type { AgentError } from "../../services/Agent.js"
import { type AgentSession, AgentSessions, type Opened, type Service, type SessionStore } from "../../services/AgentSessions.js"
import { Approval } from "../../services/Approval.js"
import { ChatModel } from "../../services/ChatModel.js"
import { Preamble } from "../../services/Preamble.js"
import { type ChatOptions, Session } from "../../services/Session.js"
import { ToolRegistry } from "../../services/ToolRegistry.js"
import * as AgentLive from "../agent/AgentLive.js"
import * as SessionLive from "../session/SessionLive.js"
import { type ApprovalBridge, makeApprovalBridge } from "./approvalBridge.js"

/** How the server keeps its sessions. */
export interface Options {
  /** Sessions held in memory at once. Default 16. */
  readonly maxSessions?: number
  /** How long an unused session lives. Default 30 minutes. */
  readonly idleTimeout?: Duration.DurationInput
  /** How long a turn waits for the caller to answer an approval request before the call is denied. Default 5 minutes. */
  readonly approvalTimeout?: Duration.DurationInput
  /** Where conversations are saved; none are when absent. */
  readonly store?: SessionStore
  /** How each session starts (its system prompt, preset…); the server's tools are already registered. */
  readonly session?: Omit<SessionLive.Config, "history" | "tools" | "withDefaultTools">
  /** The options of each session's loop. */
  readonly agent?: AgentLive.Options
}

/** The default bound on sessions in memory. */
export const defaultMaxSessions = 16
/** The default idle lifetime, in minutes. */
export const defaultIdleMinutes = 30
/** The default wait for an approval, in minutes. */
export const defaultApprovalMinutes = 5

const notFound = (id: string) =>
  new AgentSessionError({ reason: "NotFound", detail: `no session ${id} on this server: it was closed or expired; open a new one` })

const newId = (): string => randomBytes(16).toString("hex")

/** A held session and what the registry tracks about it. */
interface Held {
  readonly session: AgentSession
  readonly lastUsed: Ref.Ref<number>
  readonly running: Ref.Ref<boolean>
  /** Closed or expired: nothing is saved for it any more (a turn still ending must not bring its file back). */
  readonly retired: Ref.Ref<boolean>
}

const make = (options: Options) =>
  Effect.gen(function*() {
    const shared = yield* Effect.context<ChatModel | ToolRegistry | Preamble>()
    const store = options.store
    const maxSessions = Math.max(1, options.maxSessions ?? defaultMaxSessions)
    const idle = Duration.decode(options.idleTimeout ?? Duration.minutes(defaultIdleMinutes))
    const approvalTimeout = Duration.decode(options.approvalTimeout ?? Duration.minutes(defaultApprovalMinutes))
    const held = yield* Ref.make<ReadonlyMap<string, Held>>(new Map())
    // Opening, closing and sweeping change the map as a whole: one at a time.
    const guard = yield* Effect.makeSemaphore(1)

    const save = (id: string, session: Session["Type"]) =>
      store === undefined ? Effect.void : Effect.flatMap(session.history, (history) => store.save(id, history))

    /** A session on the shared services, with its own loop whose approvals go to `bridge`. */
    const build = (history: ReadonlyArray<ChatMessage>, bridge: ApprovalBridge) => {
      const agent = AgentLive.layer(options.agent).pipe(Layer.provide(Layer.succeed(Approval, bridge.approval)))
      const session = SessionLive.layer({ ...options.session, history, withDefaultTools: false }).pipe(
        Layer.provide(agent),
        Layer.provide(Layer.succeedContext(shared))
      )
      // No tool is registered (withDefaultTools: false, no tools): registration cannot fail.
      return Effect.scoped(Effect.map(Layer.build(session), (context) => Context.get(context, Session)))
    }

    const create = (id: string, history: ReadonlyArray<ChatMessage>) =>
      Effect.gen(function*() {
        const bridge = yield* makeApprovalBridge(approvalTimeout)
        const session = yield* Effect.orDie(build(history, bridge))
        const lock = yield* Effect.makeSemaphore(1)
        const running = yield* Ref.make(false)
        const stop = yield* Ref.make<Option.Option<Deferred.Deferred<void>>>(Option.none())
        const lastUsed = yield* Ref.make(yield* Clock.currentTimeMillis)
        const retired = yield* Ref.make(false)
        const touch = Effect.flatMap(Clock.currentTimeMillis, (now) => Ref.set(lastUsed, now))
        const persist = Effect.unlessEffect(save(id, session), Ref.get(retired))

        const turn = (text: string, chatOptions?: ChatOptions): Stream.Stream<RemoteTurnEvent, AgentError | AgentSessionError> =>
          Stream.unwrapScoped(Effect.gen(function*() {
            yield* Effect.acquireRelease(lock.take(1), () => lock.release(1))
            const asks = yield* Queue.unbounded<RemoteTurnEvent>()
            const stopped = yield* Deferred.make<void>()
            yield* Effect.acquireRelease(
              Effect.zipRight(Ref.set(running, true), Ref.set(stop, Option.some(stopped))),
              () => Effect.all([Ref.set(running, false), Ref.set(stop, Option.none()), bridge.detach, touch, persist])
            )
            yield* bridge.attach(asks)
            const events = session.stream(text, chatOptions).pipe(
              Stream.tap((event) => (event._tag === "MessagesAppended" ? persist : Effect.void))
            )
            const interrupted = new AgentSessionError({ reason: "Interrupted", detail: "the turn was interrupted" })
            return Stream.merge(events, Stream.fromQueue(asks), { haltStrategy: "left" }).pipe(
              Stream.interruptWhen(Effect.zipRight(Deferred.await(stopped), Effect.fail(interrupted)))
            )
          }))

        const agentSession: AgentSession = {
          id,
          session,
          turn,
          approve: (request, decision) =>
            Effect.flatMap(bridge.answer(request, decision), (found) =>
              found
                ? Effect.void
                : Effect.fail(new AgentSessionError({ reason: "NotFound", detail: `no approval request ${request} is waiting in session ${id}` }))),
          interrupt: Effect.flatMap(Ref.get(stop), Option.match({
            onNone: () => Effect.succeed(false),
            onSome: (deferred) => Effect.as(Deferred.succeed(deferred, undefined), true)
          })),
          changing: (change) => Effect.tap(change, () => persist)
        }
        return { session: agentSession, lastUsed, running, retired } satisfies Held
      })

    const forget = (id: string, entry: Held) =>
      Effect.zipRight(Ref.update(held, (all) => {
        const rest = new Map(all)
        rest.delete(id)
        return rest
      }), Effect.asVoid(entry.session.interrupt))

    /** Makes room for one more: evicts the least recently used idle session, or refuses. */
    const makeRoom = Effect.gen(function*() {
      const all = yield* Ref.get(held)
      if (all.size < maxSessions) return
      let oldest: { readonly id: string; readonly entry: Held; readonly at: number } | undefined
      for (const [id, entry] of all) {
        if (yield* Ref.get(entry.running)) continue
        const at = yield* Ref.get(entry.lastUsed)
        if (oldest === undefined || at < oldest.at) oldest = { id, entry, at }
      }
      if (oldest === undefined) {
        return yield* new AgentSessionError({
          reason: "Full",
          detail: `the server holds its maximum of ${maxSessions} sessions, each running a turn; try again when one ends`
        })
      }
      yield* forget(oldest.id, oldest.entry)
    })

    const insert = (id: string, history: ReadonlyArray<ChatMessage>) =>
      Effect.gen(function*() {
        yield* makeRoom
        const entry = yield* create(id, history)
        yield* Ref.update(held, (all) => new Map(all).set(id, entry))
        return entry
      })

    const open = (resume?: string): Effect.Effect<Opened, AgentSessionError> =>
      guard.withPermits(1)(Effect.gen(function*() {
        if (resume === undefined) {
          const entry = yield* insert(newId(), [])
          // Saved at once, so the id can be resumed after a restart even before its first turn.
          yield* entry.session.changing(Effect.void)
          return { session: entry.session, resumed: false }
        }
        const present = (yield* Ref.get(held)).get(resume)
        if (present !== undefined) {
          yield* Effect.flatMap(Clock.currentTimeMillis, (now) => Ref.set(present.lastUsed, now))
          return { session: present.session, resumed: true }
        }
        const saved = store === undefined ? Option.none() : yield* store.load(resume)
        if (Option.isNone(saved)) return yield* notFound(resume)
        const entry = yield* insert(resume, saved.value)
        return { session: entry.session, resumed: true }
      }))

    const get = (id: string) =>
      Effect.gen(function*() {
        const entry = (yield* Ref.get(held)).get(id)
        if (entry === undefined) return yield* notFound(id)
        yield* Effect.flatMap(Clock.currentTimeMillis, (now) => Ref.set(entry.lastUsed, now))
        return entry.session
      })

    const close = (id: string) =>
      guard.withPermits(1)(Effect.gen(function*() {
        const entry = (yield* Ref.get(held)).get(id)
        const saved = entry === undefined && store !== undefined && Option.isSome(yield* store.load(id))
        if (entry === undefined && !saved) return yield* notFound(id)
        if (entry !== undefined) yield* Effect.zipRight(Ref.set(entry.retired, true), forget(id, entry))
        if (store !== undefined) yield* store.remove(id)
      }))

    /** Forgets the sessions, in memory and saved, that nobody used for the idle lifetime. */
    const sweep = guard.withPermits(1)(Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const limit = Duration.toMillis(idle)
      for (const [id, entry] of yield* Ref.get(held)) {
        if (yield* Ref.get(entry.running)) continue
        if (now - (yield* Ref.get(entry.lastUsed)) < limit) continue
        yield* Ref.set(entry.retired, true)
        yield* forget(id, entry)
        if (store !== undefined) yield* store.remove(id)
        yield* Effect.logInfo(`session ${id} expired after ${Duration.format(idle)} unused`)
      }
      if (store === undefined) return
      const inMemory = yield* Ref.get(held)
      for (const saved of yield* store.list) {
        if (!inMemory.has(saved.id) && now - saved.savedAt >= limit) yield* store.remove(saved.id)
      }
    }))

    yield* sweep.pipe(
      Effect.repeat(Schedule.spaced(Duration.max(Duration.seconds(1), Duration.min(Duration.millis(Duration.toMillis(idle) / 4), Duration.minutes(1))))),
      Effect.forkScoped
    )

    const service: Service = { open, get, close, size: Effect.map(Ref.get(held), (all) => all.size) }
    return service
  })

/** The registry on the model, tools and composer in context; its expiry sweep runs for the life of the Layer. */
export const layer = (options: Options = {}): Layer.Layer<AgentSessions, never, ChatModel | ToolRegistry | Preamble> =>
  Layer.scoped(AgentSessions, make(options))
