import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, Fiber, Option, Stream } from "effect"
import { EventOutlet } from "../../../src/layers/engine/eventOutlet.js"

/** One turn of the event loop: what `setImmediate` scheduled before it has run. */
const turn = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
/** The two turns the outlet waits before delivering. */
const nextTurn = Effect.zipRight(turn, turn)

/** Lets every pending microtask (and the fibers they resume) run. */
const microtasks = Effect.promise(() => new Promise<void>((resolve) => queueMicrotask(resolve))).pipe(Effect.repeatN(20))

describe("EventOutlet", () => {
  it.effect("holds what a callback offers until the event loop turns, so the caller's work goes first", () =>
    Effect.gen(function*() {
      const outlet = new EventOutlet<string, never>()
      const first = yield* Effect.fork(Stream.runHead(outlet.stream))
      yield* microtasks
      outlet.offer("Once")
      yield* microtasks
      expect(Option.isNone(yield* Fiber.poll(first))).toBe(true)
      // One turn is not enough: a multi-sequence context dispatches its next batch on that turn.
      yield* turn
      yield* microtasks
      expect(Option.isNone(yield* Fiber.poll(first))).toBe(true)
      yield* turn
      expect(Option.getOrUndefined(yield* Fiber.join(first))).toBe("Once")
    }))

  it.effect("delivers the end at once, after everything held, in order; nothing follows the end", () =>
    Effect.gen(function*() {
      const outlet = new EventOutlet<string, never>()
      outlet.offer("Once")
      outlet.offer(" upon")
      outlet.end()
      outlet.offer("after the end")
      expect(Chunk.toReadonlyArray(yield* Stream.runCollect(outlet.stream))).toEqual(["Once", " upon"])
    }))

  it.effect("delivers a failure after the events held before it", () =>
    Effect.gen(function*() {
      const outlet = new EventOutlet<string, string>()
      outlet.offer("Once")
      outlet.fail("the model stopped")
      const read = yield* Stream.runCollect(Stream.either(outlet.stream))
      expect(Chunk.toReadonlyArray(read)).toEqual([Either.right("Once"), Either.left("the model stopped")])
    }))

  it.effect("wakes a reader that got ahead of the run", () =>
    Effect.gen(function*() {
      const outlet = new EventOutlet<string, never>()
      const reader = yield* Effect.fork(Stream.runCollect(outlet.stream))
      yield* microtasks
      outlet.offer("Once")
      yield* nextTurn
      outlet.offer(" upon")
      outlet.end()
      expect(Chunk.toReadonlyArray(yield* Fiber.join(reader))).toEqual(["Once", " upon"])
    }))
})
