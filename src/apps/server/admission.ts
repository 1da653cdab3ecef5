/**
 * Admission control for generations: as many run at once as the model has
 * parallel sequences; more wait in a bounded queue, in arrival order; past
 * that the server answers 503 at once rather than letting latency grow
 * without bound. A request that leaves (its client disconnected) gives its
 * place back immediately, queued or running.
 *
 * @module
 */
import { Duration, Effect, Ref, Schedule, type Scope } from "effect"
import { type ApiError, overloaded } from "./ApiError.js"

/** How busy the server is. */
export interface Load {
  readonly active: number
  readonly queued: number
}

/** The gate in front of the model. */
export interface Admission {
  /**
   * Takes a generation slot for the rest of the scope, waiting in the queue
   * while all are busy; fails with 503 when the queue is full as well.
   */
  readonly enter: Effect.Effect<void, ApiError, Scope.Scope>
  /** The current load, for `/health` and `/metrics`. */
  readonly load: Effect.Effect<Load>
  /** Completes once nothing runs or waits (at once when idle already). */
  readonly idle: Effect.Effect<void>
}

/** Seconds a refused client is told to wait. */
export const retryAfterSeconds = 1

/** How often `idle` looks at the load; it only waits during a shutdown. */
const idlePoll = Duration.millis(25)

const idleWhile = (load: Effect.Effect<Load>): Effect.Effect<void> =>
  load.pipe(
    Effect.repeat({ until: (current) => current.active + current.queued === 0, schedule: Schedule.spaced(idlePoll) }),
    Effect.asVoid
  )

/** A gate with `slots` concurrent generations and room for `queueLimit` waiting ones. */
export const make = (slots: number, queueLimit: number): Effect.Effect<Admission> =>
  Effect.gen(function*() {
    const semaphore = yield* Effect.makeSemaphore(slots)
    const state = yield* Ref.make<Load>({ active: 0, queued: 0 })
    const leaveQueue = Ref.update(state, (load) => ({ ...load, queued: load.queued - 1 }))

    const enter = Effect.uninterruptibleMask((restore) =>
      Effect.gen(function*() {
        const admitted = yield* Ref.modify(state, (load) =>
          load.active + load.queued >= slots + queueLimit
            ? [false, load] as const
            : [true, { ...load, queued: load.queued + 1 }] as const)
        if (!admitted) return yield* overloaded(retryAfterSeconds)
        yield* restore(semaphore.take(1)).pipe(Effect.onInterrupt(() => leaveQueue))
        yield* Ref.update(state, (load) => ({ active: load.active + 1, queued: load.queued - 1 }))
        yield* Effect.addFinalizer(() =>
          Effect.zipRight(Ref.update(state, (load) => ({ ...load, active: load.active - 1 })), semaphore.release(1))
        )
      })
    )
    const load = Ref.get(state)
    return { enter, load, idle: idleWhile(load) }
  })
