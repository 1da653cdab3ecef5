/**
 * The server on the real engine, over a real socket: streaming, parallel
 * generations, the queue limit and cancellation when a client goes away.
 *
 * A probe wraps the real `ChatModel` (it changes nothing it passes on): it
 * reports when a generation starts and how its stream ended, and can hold a
 * generation at its start or after its first event, so the tests decide
 * the interleaving instead of racing the model.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Context, Deferred, Effect, Fiber, Layer, Option, Queue, Ref, Schedule, Stream } from "effect"
import { ChatModel, LocalChatModel } from "easyai"
import { engineConfig, testModels } from "../../support/models.js"
import { chat, field, json, openStream, send, served, sseFrames } from "../../support/server.js"

type Ending = "completed" | "failed" | "interrupted"

interface ProbeService {
  /** When set, each generation waits on it before it starts. */
  readonly holdStart: Ref.Ref<Option.Option<Deferred.Deferred<void>>>
  /** When set, each generation waits on it between its first and second events (the first reaches the client). */
  readonly holdMidway: Ref.Ref<Option.Option<Deferred.Deferred<void>>>
  readonly started: Queue.Queue<void>
  readonly endings: Queue.Queue<Ending>
}

class Probe extends Context.Tag("test/Probe")<Probe, ProbeService>() {}

const waitOn = (hold: Ref.Ref<Option.Option<Deferred.Deferred<void>>>) =>
  Effect.flatMap(Ref.get(hold), Option.match({ onNone: () => Effect.void, onSome: Deferred.await }))

const probed = Layer.unwrapEffect(Effect.gen(function*() {
  const probe: ProbeService = {
    holdStart: yield* Ref.make(Option.none<Deferred.Deferred<void>>()),
    holdMidway: yield* Ref.make(Option.none<Deferred.Deferred<void>>()),
    started: yield* Queue.unbounded<void>(),
    endings: yield* Queue.unbounded<Ending>()
  }
  const model = Layer.effect(ChatModel, Effect.map(ChatModel, (real) => ({
    info: real.info,
    stream: (request) =>
      Stream.unwrap(Effect.gen(function*() {
        yield* Queue.offer(probe.started, undefined)
        yield* waitOn(probe.holdStart)
        const ended = yield* Ref.make<Ending>("interrupted")
        let passed = 0
        return real.stream(request).pipe(
          Stream.tap(() => (++passed === 2 ? waitOn(probe.holdMidway) : Effect.void)),
          Stream.onEnd(Ref.set(ended, "completed")),
          Stream.onError(() => Ref.set(ended, "failed")),
          Stream.ensuring(Effect.flatMap(Ref.get(ended), (ending) => Queue.offer(probe.endings, ending)))
        )
      }))
  })))
  return Layer.succeed(Probe, probe).pipe(Layer.merge(model))
}))

const holding = (hold: Ref.Ref<Option.Option<Deferred.Deferred<void>>>) =>
  Effect.gen(function*() {
    const gate = yield* Deferred.make<void>()
    yield* Ref.set(hold, Option.some(gate))
    return Effect.zipRight(Ref.set(hold, Option.none()), Deferred.succeed(gate, undefined))
  })

const request = (more: Record<string, unknown> = {}) => ({
  messages: [{ role: "system", content: "You are a storyteller." }, { role: "user", content: "Once upon a time" }],
  max_tokens: 8,
  temperature: 0,
  top_k: 1,
  ...more
})

const activeIs = (count: number) =>
  send("GET", "/health").pipe(
    Effect.map((reply) => field(json(reply), "slots", "active")),
    Effect.repeat({ until: (active) => active === count, schedule: Schedule.spaced("20 millis") }),
    Effect.timeout("10 seconds")
  )

const model = testModels[0]
if (model === undefined) throw new Error("no test model")

describe(`easyai serve on ${model.name}`, () => {
  // One layer value, used twice: built once, so the tests hold the server's own probe.
  const probe = probed.pipe(Layer.provide(LocalChatModel.layerFrom(engineConfig(model, { sequences: 2 }))))
  const stack = Layer.merge(
    served({
      model: probe,
      session: { withDefaultTools: false },
      server: { parallel: 2, queueLimit: 0, injectPreamble: false }
    }),
    probe
  )

  layer(stack, { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("streams a generation as chunks, ending with timings and [DONE]", () =>
      Effect.gen(function*() {
        const reply = yield* chat(request({ stream: true }))
        expect(reply.status).toBe(200)
        const frames = sseFrames(reply.text)
        expect(frames.at(-1)?.data).toBe("[DONE]")
        const last = JSON.parse(frames.at(-2)?.data ?? "{}")
        expect(["stop", "length"]).toContain(field(last, "choices", 0, "finish_reason"))
        expect(field(last, "timings", "predicted_n")).toBeGreaterThan(0)
        const probe = yield* Probe
        yield* Queue.take(probe.started)
        expect(yield* Queue.take(probe.endings)).toBe("completed")
      }))

    it.effect("runs two generations at once on two parallel sequences", () =>
      Effect.gen(function*() {
        const probe = yield* Probe
        const release = yield* holding(probe.holdStart)
        const both = yield* Effect.all([chat(request()), chat(request())], { concurrency: 2 }).pipe(Effect.fork)
        // Both are inside the model at the same time: a server that serialised them would never get here.
        yield* Queue.take(probe.started)
        yield* Queue.take(probe.started)
        yield* release
        const replies = yield* Fiber.join(both)
        expect(replies.map((reply) => reply.status)).toEqual([200, 200])
        for (const reply of replies) expect(field(json(reply), "usage", "completion_tokens")).toBeGreaterThan(0)
        yield* Queue.takeN(probe.endings, 2)
      }))

    it.effect("answers 503 with Retry-After when every slot is busy and the queue is full", () =>
      Effect.gen(function*() {
        const probe = yield* Probe
        const release = yield* holding(probe.holdStart)
        const busy = yield* Effect.all([chat(request()), chat(request())], { concurrency: 2 }).pipe(Effect.fork)
        yield* Queue.takeN(probe.started, 2)
        const refused = yield* chat(request())
        expect(refused.status).toBe(503)
        expect(refused.headers["retry-after"]).toBe("1")
        expect(field(json(refused), "error", "type")).toBe("server_overloaded")
        yield* release
        const replies = yield* Fiber.join(busy)
        expect(replies.map((reply) => reply.status)).toEqual([200, 200])
        yield* Queue.takeN(probe.endings, 2)
      }))

    it.effect("interrupts the generation when the client disconnects mid-stream, and frees its slot", () =>
      Effect.gen(function*() {
        const probe = yield* Probe
        const release = yield* holding(probe.holdMidway)
        yield* Effect.scoped(Effect.gen(function*() {
          const opened = yield* openStream(request({ max_tokens: 1000 }))
          expect(opened.status).toBe(200)
          // Read up to the first event, then go away while the generation is mid-way.
          yield* opened.body.pipe(Stream.take(1), Stream.runDrain)
        }))
        yield* Queue.take(probe.started)
        expect(yield* Queue.take(probe.endings)).toBe("interrupted")
        yield* release
        yield* activeIs(0)
        const after = yield* chat(request())
        expect(after.status).toBe(200)
        yield* Queue.take(probe.started)
        expect(yield* Queue.take(probe.endings)).toBe("completed")
      }))

    it.effect("keeps answering /health while generations run", () =>
      Effect.gen(function*() {
        const probe = yield* Probe
        const release = yield* holding(probe.holdStart)
        const running = yield* chat(request()).pipe(Effect.fork)
        yield* Queue.take(probe.started)
        const health = yield* send("GET", "/health")
        expect(field(json(health), "slots", "active")).toBe(1)
        yield* release
        yield* Fiber.join(running)
        yield* Queue.take(probe.endings)
      }))
  })
})
