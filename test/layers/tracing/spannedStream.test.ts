import { describe, expect, it } from "@effect/vitest"
import { Chunk, Deferred, Effect, Either, Exit, Fiber, Stream } from "effect"
import type { SpanRecord } from "easyai"
import { scopedSpannedStream, spannedStream } from "../../../src/layers/tracing/spannedStream.js"
import { traced } from "../../support/traced.js"

/** The one span called `name`. */
const one = (spans: ReadonlyArray<SpanRecord.SpanRecord>, name: string) => {
  const found = spans.filter((span) => span.name === name)
  expect(found).toHaveLength(1)
  return found[0]!
}

/** A stream of `values` whose setup opens a child span and registers a finalizer that counts its runs. */
const counted = (values: ReadonlyArray<number>, log: Array<string>) =>
  scopedSpannedStream("Test.stream", { attributes: { "test.size": values.length } }, (span) =>
    Effect.gen(function*() {
      log.push("setup")
      span.attribute("test.setup", true)
      yield* Effect.void.pipe(Effect.withSpan("Test.child"))
      yield* Effect.addFinalizer((exit) => Effect.sync(() => log.push(Exit.isSuccess(exit) ? "closed" : "closed after failure")))
      return Stream.fromIterable(values)
    }))

describe("scopedSpannedStream", () => {
  it.effect("runs its setup once, when read, under a span that the reader's span parents and the setup's spans are children of", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const { spans, value } = yield* traced(Effect.gen(function*() {
        const stream = counted([1, 2, 3], log)
        log.push("built")
        return yield* Stream.runCollect(stream).pipe(Effect.withSpan("Test.reader"))
      }))
      expect(Chunk.toReadonlyArray(value)).toEqual([1, 2, 3])
      expect(log).toEqual(["built", "setup", "closed"])
      const own = one(spans, "Test.stream")
      expect(own.parentSpanId).toBe(one(spans, "Test.reader").spanId)
      expect(one(spans, "Test.child").parentSpanId).toBe(own.spanId)
      expect(own.status).toBe("ok")
      expect(own.attributes).toMatchObject({ "test.size": 3, "test.setup": true })
    }))

  it.effect("ends its span and closes its scope when the reader stops early", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const { spans, value } = yield* traced(Stream.runCollect(Stream.take(counted([1, 2, 3], log), 1)))
      expect(Chunk.toReadonlyArray(value)).toEqual([1])
      expect(log).toEqual(["setup", "closed"])
      expect(one(spans, "Test.stream").status).toBe("ok")
    }))

  it.effect("ends its span with the stream's failure, after the scope closed", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const failing = Stream.concat(counted([1], log), Stream.fail("broken"))
      const { spans, value } = yield* traced(Effect.either(Stream.runCollect(failing)))
      expect(value).toEqual(Either.left("broken"))
      // The failure comes after this stream ended: its own span is fine.
      expect(one(spans, "Test.stream").status).toBe("ok")

      const inner: Array<string> = []
      const broken = scopedSpannedStream("Test.broken", {}, () =>
        Effect.gen(function*() {
          yield* Effect.addFinalizer((exit) => Effect.sync(() => inner.push(Exit.isSuccess(exit) ? "closed" : "closed after failure")))
          return Stream.concat(Stream.make(1), Stream.fail("mid-stream"))
        }))
      const second = yield* traced(Effect.either(Stream.runCollect(broken)))
      expect(second.value).toEqual(Either.left("mid-stream"))
      expect(inner).toEqual(["closed after failure"])
      const span = one(second.spans, "Test.broken")
      expect(span.status).toBe("error")
      expect(span.error).toContain("mid-stream")
    }))

  it.effect("a setup that fails is the stream's failure, with its scope closed and its span ended in error", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const refused = scopedSpannedStream("Test.refused", {}, () =>
        Effect.gen(function*() {
          yield* Effect.addFinalizer(() => Effect.sync(() => log.push("closed")))
          return yield* Effect.fail("no slot")
        }))
      const { spans, value } = yield* traced(Effect.either(Stream.runCollect(refused)))
      expect(value).toEqual(Either.left("no slot"))
      expect(log).toEqual(["closed"])
      expect(one(spans, "Test.refused").status).toBe("error")
    }))

  it.effect("an interrupted reader closes the scope and ends the span as interrupted", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const reading = yield* Deferred.make<void>()
      const endless = scopedSpannedStream("Test.endless", {}, () =>
        Effect.gen(function*() {
          yield* Effect.addFinalizer(() => Effect.sync(() => log.push("closed")))
          return Stream.concat(Stream.fromEffect(Deferred.succeed(reading, undefined)), Stream.never)
        }))
      const { spans } = yield* traced(Effect.gen(function*() {
        const reader = yield* Effect.fork(Stream.runDrain(endless))
        yield* Deferred.await(reading)
        yield* Fiber.interrupt(reader)
      }))
      expect(log).toEqual(["closed"])
      expect(one(spans, "Test.endless").status).toBe("interrupted")
    }))
})

describe("spannedStream (no scope)", () => {
  it.effect("runs its setup once, when read, under a span between the reader's and the setup's, and ends it when the reader stops early", () =>
    Effect.gen(function*() {
      let setups = 0
      const stream = spannedStream("Test.light", { attributes: { "test.light": true } }, (span) =>
        Effect.gen(function*() {
          setups++
          span.attribute("test.setup", true)
          yield* Effect.void.pipe(Effect.withSpan("Test.child"))
          return Stream.make(1, 2, 3)
        }))
      const { spans, value } = yield* traced(Stream.runCollect(Stream.take(stream, 2)).pipe(Effect.withSpan("Test.reader")))
      expect(Chunk.toReadonlyArray(value)).toEqual([1, 2])
      expect(setups).toBe(1)
      const own = one(spans, "Test.light")
      expect(own.parentSpanId).toBe(one(spans, "Test.reader").spanId)
      expect(one(spans, "Test.child").parentSpanId).toBe(own.spanId)
      expect(own.status).toBe("ok")
      expect(own.attributes).toMatchObject({ "test.light": true, "test.setup": true })
    }))

  it.effect("takes the parent it is given over the reader's", () =>
    Effect.gen(function*() {
      const { spans } = yield* traced(Effect.gen(function*() {
        const given = yield* Effect.makeSpan("Test.given")
        yield* Stream.runDrain(spannedStream("Test.light", { parent: given }, () => Effect.succeed(Stream.make(1))))
        given.end(0n, Exit.void)
      }).pipe(Effect.withSpan("Test.reader")))
      expect(one(spans, "Test.light").parentSpanId).toBe(one(spans, "Test.given").spanId)
    }))

  it.effect("ends its span in error when the stream or its setup fails, and as interrupted when its reader is", () =>
    Effect.gen(function*() {
      const broken = spannedStream("Test.broken", {}, () => Effect.succeed(Stream.concat(Stream.make(1), Stream.fail("mid-stream"))))
      const first = yield* traced(Effect.either(Stream.runCollect(broken)))
      expect(first.value).toEqual(Either.left("mid-stream"))
      expect(one(first.spans, "Test.broken").status).toBe("error")
      expect(one(first.spans, "Test.broken").error).toContain("mid-stream")

      const refused = spannedStream("Test.refused", {}, () => Effect.fail("no slot"))
      const second = yield* traced(Effect.either(Stream.runCollect(refused)))
      expect(second.value).toEqual(Either.left("no slot"))
      expect(one(second.spans, "Test.refused").status).toBe("error")

      const reading = yield* Deferred.make<void>()
      const endless = spannedStream("Test.endless", {}, () =>
        Effect.succeed(Stream.concat(Stream.fromEffect(Deferred.succeed(reading, undefined)), Stream.never)))
      const third = yield* traced(Effect.gen(function*() {
        const reader = yield* Effect.fork(Stream.runDrain(endless))
        yield* Deferred.await(reading)
        yield* Fiber.interrupt(reader)
      }))
      expect(one(third.spans, "Test.endless").status).toBe("interrupted")
    }))
})
