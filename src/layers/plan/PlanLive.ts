/**
 * The in-memory plan: one per Layer build, so one per session when the
 * session stack provides it.
 *
 * @module
 */
import { Effect, Either, Layer, PubSub, Stream, SynchronizedRef } from "effect"
import { type PlanRequest, PlanSnapshot } from "../../domain/plan.js"
import { applyPlanRequest } from "../../domain/planRequest.js"
import { Plan } from "../../services/Plan.js"

/**
 * How many unread snapshots a slow subscriber may fall behind before the
 * oldest are dropped. Each snapshot is the whole plan, so a renderer that
 * skips some still ends on the latest; a publisher never waits on a reader.
 */
const changeBuffer = 64

/** The plan, empty at start, its changes published to every `changes` subscriber. */
export const layer: Layer.Layer<Plan> = Layer.scoped(
  Plan,
  Effect.gen(function*() {
    const state = yield* SynchronizedRef.make(PlanSnapshot.empty)
    // Shut down with the Layer, so a renderer reading `changes` ends with it.
    const pubsub = yield* Effect.acquireRelease(PubSub.sliding<PlanSnapshot>(changeBuffer), PubSub.shutdown)

    // Publishing inside the state update keeps notifications in the order the changes were made.
    const apply = Effect.fn("Plan.apply")(function*(request: PlanRequest) {
      return yield* SynchronizedRef.modifyEffect(state, (snapshot) =>
        Either.match(applyPlanRequest(snapshot, request), {
          onLeft: Effect.fail,
          onRight: (result) =>
            (result.changed ? PubSub.publish(pubsub, result.snapshot) : Effect.void).pipe(
              Effect.as([result, result.snapshot] as const)
            )
        }))
    })

    const reset = SynchronizedRef.updateEffect(
      state,
      () => PubSub.publish(pubsub, PlanSnapshot.empty).pipe(Effect.as(PlanSnapshot.empty))
    ).pipe(Effect.withSpan("Plan.reset"))

    return Plan.of({
      current: SynchronizedRef.get(state),
      apply,
      changes: Stream.fromPubSub(pubsub),
      reset
    })
  })
)
