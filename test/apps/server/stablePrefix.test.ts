/**
 * `easyai serve` on the real engine, over a real socket: the second request
 * of a conversation, sent in a later second of the real clock, reuses the KV
 * cache of the whole first prompt, its question's clock note included — what
 * the response's `timings.cache_n` and `usage.prompt_tokens_details.cached_tokens`
 * report. Before, the timestamp sat in the system prompt, and the cache ended there.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Clock, Effect, Schedule } from "effect"
import { LocalChatModel } from "easyai"
import { engineConfig, testModels } from "../../support/models.js"
import { chat, field, json, served } from "../../support/server.js"

const model = testModels[0]
if (model === undefined) throw new Error("no test model")

const system = { role: "system", content: "You are a careful storyteller who answers in one short sentence." }
const tools = [{
  type: "function",
  function: {
    name: "get_weather",
    description: "Current weather for a city.",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
  }
}]
// Long enough that a cache ending anywhere before its end would fall far short of the bound below.
const firstQuestion = `Tell me a story about ${"a small red fox who walks through the green forest and ".repeat(8)}finds a blue stone.`

const ask = (messages: ReadonlyArray<unknown>) => chat({ messages, tools, max_tokens: 8, temperature: 0, top_k: 1 })

/** Waits, polling the real clock (bounded), until a second later than `after` has begun. */
const nextSecond = (after: number) =>
  Clock.currentTimeMillis.pipe(
    Effect.repeat({ until: (now) => Math.floor(now / 1000) > Math.floor(after / 1000), schedule: Schedule.spaced("20 millis") }),
    Effect.timeout("3 seconds")
  )

const counts = (body: unknown) => ({
  prompt: Number(field(body, "usage", "prompt_tokens")),
  cached: Number(field(body, "usage", "prompt_tokens_details", "cached_tokens")),
  cacheN: Number(field(body, "timings", "cache_n")),
  promptN: Number(field(body, "timings", "prompt_n"))
})

describe(`easyai serve on ${model.name}: a conversation's prompt prefix`, () => {
  const stack = served({
    model: LocalChatModel.layerFrom(engineConfig(model, { contextSize: 4096 })),
    session: { withDefaultTools: false }
  })

  layer(stack, { timeout: 120_000, excludeTestServices: true })((it) => {
    it.effect("the next turn, a second later, reuses the cache of the whole previous prompt", () =>
      Effect.gen(function*() {
        const first = yield* ask([system, { role: "user", content: firstQuestion }])
        expect(first.status).toBe(200)
        const one = counts(json(first))
        const answer = String(field(json(first), "choices", 0, "message", "content") ?? "")
        yield* nextSecond(yield* Clock.currentTimeMillis)

        const second = yield* ask([
          system,
          { role: "user", content: firstQuestion },
          { role: "assistant", content: answer },
          { role: "user", content: "And then?" }
        ])
        expect(second.status).toBe(200)
        const two = counts(json(second))

        // What a benchmark reads: the cached share, both ways, adding up to the prompt.
        expect(two.cached).toBe(two.cacheN)
        expect(two.cacheN + two.promptN).toBe(two.prompt)
        expect(two.prompt).toBeGreaterThan(one.prompt)
        // The whole first prompt, its clock note and the assistant's header included, comes from the cache.
        expect(two.cacheN).toBeGreaterThanOrEqual(one.prompt)
      }))
  })
})
