import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, Fiber, Queue, Stream, Take } from "effect"
import { fromTakes } from "../../../src/layers/agent/takeStream.js"

/** A queue holding `takes`, as the agent loop leaves them for its reader. */
const queueOf = <A, E>(takes: ReadonlyArray<Take.Take<A, E>>) =>
  Effect.tap(Queue.unbounded<Take.Take<A, E>>(), (queue) => Queue.offerAll(queue, takes))

/** What `Stream.fromQueue(…).pipe(Stream.flattenTake)` reads from the same takes: the behaviour to keep. */
const reference = <A, E>(takes: ReadonlyArray<Take.Take<A, E>>) =>
  Effect.flatMap(queueOf(takes), (queue) => Effect.either(Stream.runCollect(Stream.flattenTake(Stream.fromQueue(queue)))))

const read = <A, E>(takes: ReadonlyArray<Take.Take<A, E>>) =>
  Effect.flatMap(queueOf(takes), (queue) => Effect.either(Stream.runCollect(fromTakes(queue))))

describe("fromTakes", () => {
  it.effect("reads the events in order and stops at the end, whatever follows it", () =>
    Effect.gen(function*() {
      const takes = [Take.of("a"), Take.chunk(Chunk.make("b", "c")), Take.of("d"), Take.end, Take.of("after the end")]
      const events = yield* read(takes)
      expect(Either.map(events, Chunk.toReadonlyArray)).toEqual(Either.right(["a", "b", "c", "d"]))
      expect(events).toEqual(yield* reference(takes))
    }))

  it.effect("fails with the loop's error after the events offered before it", () =>
    Effect.gen(function*() {
      const seen: Array<string> = []
      const queue = yield* queueOf([Take.of("a"), Take.of("b"), Take.fail("broken"), Take.of("never")])
      const result = yield* Effect.either(Stream.runForEach(fromTakes(queue), (event) => Effect.sync(() => seen.push(event))))
      expect(seen).toEqual(["a", "b"])
      expect(result).toEqual(Either.left("broken"))
      expect(yield* read([Take.fail("first"), Take.of("a")])).toEqual(yield* reference([Take.fail("first"), Take.of("a")]))
    }))

  it.effect("an end with nothing before it is an empty stream", () =>
    Effect.gen(function*() {
      expect(Either.map(yield* read([Take.end]), Chunk.toReadonlyArray)).toEqual(Either.right([]))
    }))

  it.effect("a reader ahead of the loop waits for the next take", () =>
    Effect.gen(function*() {
      const queue = yield* Queue.bounded<Take.Take<string, never>>(4)
      const reader = yield* Effect.fork(Stream.runCollect(fromTakes(queue)))
      yield* Queue.offer(queue, Take.of("first"))
      yield* Effect.yieldNow()
      yield* Queue.offer(queue, Take.of("second"))
      yield* Queue.offer(queue, Take.end)
      expect(Chunk.toReadonlyArray(yield* Fiber.join(reader))).toEqual(["first", "second"])
    }))
})
