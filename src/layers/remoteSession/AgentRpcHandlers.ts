/**
 * The server side of the agent protocol: each `AgentRpcs` request answered
 * from the `AgentSessions` in context. Serve it over HTTP with
 * `RpcServer.toHttpApp(AgentRpcs)` (as `easyai serve` does at `/rpc`), or
 * in-process with `RpcTest.makeClient(AgentRpcs)`.
 *
 * @module
 */
import type { Rpc, RpcGroup } from "@effect/rpc"
import { Effect, type Layer, type Scope, Stream } from "effect"
import type { AgentEvent } from "../../domain/AgentEvent.js"
import { type AgentSessionError, AgentRpcs } from "../../domain/AgentRpc.js"
import { type AgentSession, AgentSessions } from "../../services/AgentSessions.js"
import { Decision } from "../../services/Approval.js"
import { declinedReason } from "../approval/ApprovalLive.js"

/** What serving the protocol takes: a handler for each of its requests. */
export type Handlers = Rpc.ToHandler<RpcGroup.Rpcs<typeof AgentRpcs>>

/** What a server adds around the handlers. */
export interface Hooks {
  /** Runs before each turn and compaction, for the life of it (a generation slot, say). */
  readonly admit?: Effect.Effect<void, AgentSessionError, Scope.Scope>
  /** Sees each event of every turn as it passes (for metrics, say). */
  readonly observe?: (event: AgentEvent) => Effect.Effect<void>
}

/** The handlers on the sessions in context. */
export const layer = (hooks: Hooks = {}): Layer.Layer<Handlers, never, AgentSessions> =>
  AgentRpcs.toLayer(Effect.gen(function*() {
    const sessions = yield* AgentSessions
    const admit = hooks.admit ?? Effect.void
    const observe = hooks.observe
    const on = <A, E>(id: string, use: (session: AgentSession) => Effect.Effect<A, E>) =>
      Effect.flatMap(sessions.get(id), use)
    return AgentRpcs.of({
      Open: ({ resume }) =>
        Effect.flatMap(sessions.open(resume), ({ resumed, session }) =>
          Effect.map(session.session.history, (history) => ({ id: session.id, resumed, messages: history.length }))),
      Turn: ({ options, session, text }) =>
        Stream.unwrapScoped(Effect.gen(function*() {
          const held = yield* sessions.get(session)
          yield* admit
          const events = held.turn(text, options)
          return observe === undefined
            ? events
            : Stream.tap(events, (event) => (event._tag === "ApprovalRequested" ? Effect.void : observe(event)))
        })),
      Approve: ({ approved, id, reason, session }) =>
        on(session, (held) =>
          held.approve(id, approved ? Decision.Approved() : Decision.Denied({ reason: reason ?? declinedReason }))),
      Interrupt: ({ session }) => on(session, (held) => held.interrupt),
      History: ({ session }) => on(session, (held) => held.session.history),
      System: ({ session }) => on(session, (held) => held.session.system),
      RenderSystem: ({ session }) => on(session, (held) => held.session.renderSystem),
      RefreshSystem: ({ session }) => on(session, (held) => held.session.refreshSystem),
      SetSystem: ({ session, text }) => on(session, (held) => held.changing(held.session.setSystem(text))),
      AppendSystem: ({ session, text }) => on(session, (held) => held.session.appendSystem(text)),
      Reset: ({ session }) => on(session, (held) => held.changing(held.session.reset)),
      Compress: ({ session }) =>
        Effect.scoped(Effect.flatMap(sessions.get(session), (held) => Effect.zipRight(admit, held.changing(held.session.compress)))),
      Close: ({ session }) => sessions.close(session)
    })
  }))
