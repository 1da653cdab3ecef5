/**
 * The approval gate of a server-side session: each call is put to the
 * caller as an `ApprovalRequested` on the running turn's stream, and waits
 * for the caller's `Approve` (or the timeout, which denies it).
 *
 * @module
 */
import { Deferred, Duration, Effect, Option, Queue, Ref } from "effect"
import { randomBytes } from "node:crypto"
import { ApprovalRequested, type RemoteTurnEvent } from "../../domain/AgentRpc.js"
import { displayToolName } from "../../domain/mcp.js"
import { Decision, type Service as ApprovalService } from "../../services/Approval.js"
import { declinedReason } from "../approval/ApprovalLive.js"

/** A session's gate and the hooks its turns use. */
export interface ApprovalBridge {
  /** The gate the session's loop asks. */
  readonly approval: ApprovalService
  /** Sends the requests to `asks`, the running turn's stream, until `detach`. */
  readonly attach: (asks: Queue.Enqueue<RemoteTurnEvent>) => Effect.Effect<void>
  /** The turn is over: no one can answer any more, so waiting calls are denied. */
  readonly detach: Effect.Effect<void>
  /** Answers request `id`; `false` when no such request waits. */
  readonly answer: (id: string, decision: Decision) => Effect.Effect<boolean>
}

/** A bridge whose unanswered requests are denied after `timeout`. */
export const makeApprovalBridge = (timeout: Duration.Duration): Effect.Effect<ApprovalBridge> =>
  Effect.gen(function*() {
    const target = yield* Ref.make<Option.Option<Queue.Enqueue<RemoteTurnEvent>>>(Option.none())
    const waiting = yield* Ref.make<ReadonlyMap<string, Deferred.Deferred<Decision>>>(new Map())
    const without = (id: string) =>
      Ref.update(waiting, (all) => {
        const rest = new Map(all)
        rest.delete(id)
        return rest
      })

    const check = (call: ApprovalRequested["call"]) =>
      Effect.gen(function*() {
        const asks = yield* Ref.get(target)
        if (Option.isNone(asks)) return Decision.Denied({ reason: "no caller is connected to approve this call" })
        const id = randomBytes(8).toString("hex")
        const answer = yield* Deferred.make<Decision>()
        yield* Ref.update(waiting, (all) => new Map(all).set(id, answer))
        yield* Queue.offer(asks.value, new ApprovalRequested({ id, call, displayName: displayToolName(call.name) }))
        const said = yield* Deferred.await(answer).pipe(Effect.timeout(timeout), Effect.option, Effect.ensuring(without(id)))
        return Option.match(said, {
          onNone: () => Decision.Denied({ reason: `the caller did not answer the approval request within ${Duration.format(timeout)}` }),
          onSome: (decision) => decision
        })
      })

    const detach = Effect.gen(function*() {
      yield* Ref.set(target, Option.none())
      const left = yield* Ref.getAndSet(waiting, new Map())
      yield* Effect.forEach(left.values(), (answer) => Deferred.succeed(answer, Decision.Denied({ reason: declinedReason })), { discard: true })
    })

    const answer = (id: string, decision: Decision) =>
      Effect.flatMap(Ref.get(waiting), (all) => {
        const deferred = all.get(id)
        return deferred === undefined ? Effect.succeed(false) : Effect.as(Deferred.succeed(deferred, decision), true)
      })

    return {
      approval: { check },
      attach: (asks) => Ref.set(target, Option.some(asks)),
      detach,
      answer
    }
  })
