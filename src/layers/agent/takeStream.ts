/**
 * The stream of a queue of `Take`s, in one stage.
 *
 * `Stream.fromQueue(queue).pipe(Stream.flattenTake)` is four stages every
 * chunk passes (the queue, a map to exits, their flattening, the chunks'
 * flattening); on the token path each stage is paid on every delivery. Here
 * one pull takes whatever the queue holds and hands the events on as one
 * chunk, then the end or the failure, in the order they were offered.
 *
 * @module
 */
import { Channel, Chunk, Effect, Queue, Stream, Take } from "effect"

/** How many takes one pull gathers at most, as `Stream.fromQueue` does. */
const maxTakes = 4096

/** The events of `queue`'s takes, ending at the first end and failing at the first failure. */
export const fromTakes = <A, E>(queue: Queue.Dequeue<Take.Take<A, E>>): Stream.Stream<A, E> => {
  const next: Channel.Channel<Chunk.Chunk<A>, unknown, E, unknown, void, unknown> = Channel.unwrap(
    Effect.map(Queue.takeBetween(queue, 1, maxTakes), (takes) => {
      let events = Chunk.empty<A>()
      for (const take of takes) {
        const stop = Take.match(take, {
          onEnd: () => Channel.void,
          onFailure: (cause) => Channel.failCause(cause),
          onSuccess: (chunk) => {
            events = Chunk.appendAll(events, chunk)
            return undefined
          }
        })
        if (stop !== undefined) return Chunk.isEmpty(events) ? stop : Channel.zipRight(Channel.write(events), stop)
      }
      return Channel.zipRight(Channel.write(events), next)
    })
  )
  return Stream.fromChannel(next)
}
