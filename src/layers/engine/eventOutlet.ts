/**
 * Handing a run's events from node-llama-cpp's callbacks to the stream that
 * reads them, off the token loop.
 *
 * A per-token callback runs between two tokens. Whatever it wakes — the
 * consumer's stream, a server encoding SSE — runs before node-llama-cpp
 * dispatches the next evaluation, so it would sit on the generation's
 * critical path. The outlet holds what a callback offers and delivers it two
 * turns of the event loop later: node-llama-cpp dispatches within the
 * callback's turn (one sequence) or on the next `setImmediate` (a context
 * with several sequences batches them), so by the second turn the next token
 * is being evaluated on llama.cpp's own thread and the consumer's work
 * overlaps it. The end of a run is delivered at once, after everything
 * held: nothing is left to overlap, and order is kept.
 *
 * The stream pulls whatever was delivered since its last pull as one chunk,
 * with no queue or per-event wrapper in between: at a thousand tokens a
 * second, each stage between the model and the reader shows in the speed.
 *
 * @module
 */
import { Chunk, Effect, Option, Stream } from "effect"

type Outcome<E> = { readonly _tag: "End" } | { readonly _tag: "Fail"; readonly error: E }

/** What a pull of the stream produces: the next events, or the end (`None`) or failure (`Some`). */
type Pull<A, E> = Effect.Effect<Chunk.Chunk<A>, Option.Option<E>>

/** Collects events from synchronous callbacks and delivers them to one stream. */
export class EventOutlet<A, E> {
  /** Offered, waiting for the event loop to turn. */
  private held: Array<A> = []
  /** Delivered, not yet pulled. */
  private delivered: Array<A> = []
  private outcome: Outcome<E> | undefined
  /** The pull waiting for events, if the reader got ahead of the run. */
  private waiting: ((pull: Pull<A, E>) => void) | undefined

  /** The events, ending when the run ends or failing with its error. Read it once. */
  readonly stream: Stream.Stream<A, E> = Stream.repeatEffectChunkOption(Effect.suspend(() => this.pull()))

  /** Holds an event until the event loop has turned twice (see the module's note). */
  offer(event: A): void {
    if (this.outcome !== undefined) return // the run is over: nothing follows its end
    this.held.push(event)
    if (this.held.length === 1) setImmediate(this.afterDispatch)
  }

  /** The first turn: node-llama-cpp's own `setImmediate` dispatch, queued after ours, runs next. */
  private readonly afterDispatch = (): void => {
    setImmediate(this.release)
  }

  /** Delivers everything held, then the end of the stream. */
  end(): void {
    this.finish({ _tag: "End" })
  }

  /** Delivers everything held, then `error`. */
  fail(error: E): void {
    this.finish({ _tag: "Fail", error })
  }

  private finish(outcome: Outcome<E>): void {
    this.outcome ??= outcome
    this.release()
  }

  private readonly release = (): void => {
    if (this.held.length > 0) {
      for (const event of this.held) this.delivered.push(event)
      this.held = []
    }
    const waiting = this.waiting
    if (waiting === undefined || (this.delivered.length === 0 && this.outcome === undefined)) return
    this.waiting = undefined
    waiting(this.pull())
  }

  private pull(): Pull<A, E> {
    if (this.delivered.length > 0) {
      const events = Chunk.unsafeFromArray(this.delivered)
      this.delivered = []
      return Effect.succeed(events)
    }
    const outcome = this.outcome
    if (outcome !== undefined) return Effect.fail(outcome._tag === "End" ? Option.none() : Option.some(outcome.error))
    return Effect.async<Chunk.Chunk<A>, Option.Option<E>>((resume) => {
      this.waiting = resume
      // An interrupted reader stops waiting; what is delivered later is dropped with the outlet.
      return Effect.sync(() => {
        this.waiting = undefined
      })
    })
  }
}
