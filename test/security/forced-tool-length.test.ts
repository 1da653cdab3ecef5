/**
 * A forced tool call cut short by `max_tokens` is a `length` finish, not a
 * server error.
 *
 * The attack: `tool_choice` forces a call (`"required"` or a named
 * function) and `max_tokens` is too small for the call's JSON. The server
 * used to answer HTTP 500 — and the official SDK retries a 500 twice, so
 * one request cost three generations. Replayed here against a real
 * `easyai serve` on a real model, through the official `openai` SDK with its
 * default retries, counting what the SDK sent and what the server saw.
 */
import { HttpClient } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { expect, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import OpenAI from "openai"
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
  ChatCompletionToolChoiceOption
} from "openai/resources/chat/completions"
import * as path from "node:path"
import { testModels } from "../support/models.js"
import { startServe } from "../support/programProcess.js"
import { field } from "../support/server.js"
import { weather } from "../support/tools.js"

/** The small story model when the shared models are there, else the generated one. */
const model = testModels.find((candidate) => path.basename(candidate.path) === "stories260K.gguf") ?? testModels[0]
if (model === undefined) throw new Error("no test model")

/** A running `easyai serve`. */
class Served extends Context.Tag("test/Served")<Served, { readonly url: string }>() {}

/** A server on the model with a small context and `toolFlags` for its own tools, for a whole block of tests. */
const servedWith = (...toolFlags: ReadonlyArray<string>) =>
  Layer.merge(
    Layer.scoped(
      Served,
      Effect.map(startServe("--model", model.path, "--port", "0", "--threads", "1", "--ctx", "512", ...toolFlags), ({ url }) => ({ url }))
    ),
    NodeHttpClient.layerUndici
  )

const messages: Array<ChatCompletionMessageParam> = [
  { role: "system", content: "You call tools." },
  { role: "user", content: "What is the weather in Paris?" }
]

const forcedBody = (toolChoice: ChatCompletionToolChoiceOption, maxTokens: number): ChatCompletionCreateParamsNonStreaming => ({
  model: "",
  messages,
  tools: [weather],
  tool_choice: toolChoice,
  max_tokens: maxTokens
})

/**
 * The official SDK with its default retries (a 500 would be sent three
 * times), its fetch counted. The preamble is off so the prompt fits the
 * small context.
 */
const sdk = (url: string) => {
  let sent = 0
  const client = new OpenAI({
    baseURL: `${url}/v1`,
    apiKey: "not-checked",
    defaultHeaders: { "x-easyai-inject": "off" },
    fetch: (input, init) => {
      sent++
      return globalThis.fetch(input, init)
    }
  })
  return { client, sent: () => sent }
}

/** The SDK's promise as an Effect; its rejection, if any, is the failure. */
const attempt = <A>(run: (signal: AbortSignal) => Promise<A>) => Effect.tryPromise({ try: run, catch: (error) => error })

/** One counter of the server's `/metrics`. */
const counter = (url: string, name: string) =>
  Effect.scoped(Effect.gen(function*() {
    const response = yield* (yield* HttpClient.HttpClient).get(`${url}/metrics`)
    const line = (yield* response.text).split("\n").find((text) => text.startsWith(`${name} `))
    return Number(line?.slice(name.length + 1))
  }))

/** What the server counted across `run`: the requests (the first `/metrics` read among them) and the errors. */
const counted = <A, E, R>(url: string, run: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const requests = yield* counter(url, "easyai_requests_total")
    const errors = yield* counter(url, "easyai_errors_total")
    const result = yield* run
    return {
      result,
      // The two reads before `run` count themselves in the next read.
      requests: (yield* counter(url, "easyai_requests_total")) - requests - 2,
      errors: (yield* counter(url, "easyai_errors_total")) - errors
    }
  })

const forcedChoices: ReadonlyArray<readonly [string, ChatCompletionToolChoiceOption]> = [
  ["required", "required"],
  ["a named function", { type: "function", function: { name: "get_weather" } }]
]

// The server as the reproduction ran it: no server-side tools; the request brings its own.
layer(servedWith("--no-tools"), { timeout: 120_000, excludeTestServices: true })(
  `a forced tool call cut short by max_tokens (easyai serve on ${model.name})`,
  (it) => {
    for (const [label, choice] of forcedChoices) {
      it.effect(`tool_choice ${label}, max_tokens 5, not streamed: 200 with finish_reason length, sent once`, () =>
        Effect.gen(function*() {
          const { url } = yield* Served
          const { client, sent } = sdk(url)
          const { errors, requests, result } = yield* counted(
            url,
            attempt((signal) => client.chat.completions.create(forcedBody(choice, 5), { signal }))
          )
          const [only] = result.choices
          expect(only?.finish_reason).toBe("length")
          // Arguments cut mid-JSON are not a call: none is presented.
          expect(only?.message.tool_calls).toBeUndefined()
          expect(result.usage?.completion_tokens).toBe(5)
          expect(sent()).toBe(1)
          expect(requests).toBe(1)
          expect(errors).toBe(0)
        }))

      it.effect(`tool_choice ${label}, max_tokens 5, streamed: the chunks end with finish_reason length, sent once`, () =>
        Effect.gen(function*() {
          const { url } = yield* Served
          const { client, sent } = sdk(url)
          const { errors, requests, result } = yield* counted(
            url,
            attempt(async (signal) => {
              const stream = await client.chat.completions.create({ ...forcedBody(choice, 5), stream: true }, { signal })
              const chunks: Array<ChatCompletionChunk> = []
              for await (const chunk of stream) chunks.push(chunk)
              return chunks
            })
          )
          const finishes = result.flatMap((chunk) => chunk.choices.flatMap((entry) => (entry.finish_reason === null ? [] : [entry.finish_reason])))
          expect(finishes).toEqual(["length"])
          expect(result.at(-1)?.choices[0]?.finish_reason).toBe("length")
          expect(result.some((chunk) => chunk.choices.some((entry) => entry.delta.tool_calls !== undefined))).toBe(false)
          expect(sent()).toBe(1)
          expect(requests).toBe(1)
          expect(errors).toBe(0)
        }))
    }

    it.effect("with a generous max_tokens the forced call completes, its arguments JSON", () =>
      Effect.gen(function*() {
        const { url } = yield* Served
        const { client, sent } = sdk(url)
        for (const [, choice] of forcedChoices) {
          const completion = yield* attempt((signal) => client.chat.completions.create(forcedBody(choice, 200), { signal }))
          const [only] = completion.choices
          expect(only?.finish_reason).toBe("tool_calls")
          const call = only?.message.tool_calls?.[0]
          expect(call?.type === "function" ? call.function.name : undefined).toBe("get_weather")
          const args: unknown = JSON.parse(call?.type === "function" ? call.function.arguments : "")
          expect(typeof field(args, "city")).toBe("string")
          expect(completion.usage?.completion_tokens).toBeLessThanOrEqual(200)
        }
        expect(sent()).toBe(forcedChoices.length)
      }))

    it.effect("a forced tool whose schema no grammar can be built from is a 400 naming tools, sent once", () =>
      Effect.gen(function*() {
        const { url } = yield* Served
        const { client, sent } = sdk(url)
        const unbuildable: ChatCompletionFunctionTool = {
          type: "function",
          function: { name: "pick", parameters: { type: "object", properties: { choice: { const: { nested: true } } } } }
        }
        const { errors, requests, result } = yield* counted(
          url,
          Effect.flip(attempt((signal) => client.chat.completions.create({ ...forcedBody("required", 50), tools: [unbuildable] }, { signal })))
        )
        expect(result).toBeInstanceOf(OpenAI.BadRequestError)
        expect(result).toMatchObject({ status: 400, param: "tools" })
        expect(String(result)).toContain("cannot build the tool-call grammar")
        expect(sent()).toBe(1)
        expect(requests).toBe(1)
        expect(errors).toBe(1)
      }))
  }
)

// The server's own tools (its defaults) through the agent loop: `tool_choice` forces the first turn's call.
layer(servedWith(), { timeout: 120_000, excludeTestServices: true })(
  `a forced call to the server's own tool cut short by max_tokens (easyai serve on ${model.name})`,
  (it) => {
    it.effect("not streamed: 200 with finish_reason length, no tool run, sent once", () =>
      Effect.gen(function*() {
        const { url } = yield* Served
        const { client, sent } = sdk(url)
        const toolCalls = yield* counter(url, "easyai_tool_calls_total")
        const { errors, requests, result } = yield* counted(
          url,
          attempt((signal) => client.chat.completions.create({ model: "", messages, tool_choice: "required", max_tokens: 5 }, { signal }))
        )
        expect(result.choices[0]?.finish_reason).toBe("length")
        expect(yield* counter(url, "easyai_tool_calls_total")).toBe(toolCalls)
        expect(sent()).toBe(1)
        expect(requests).toBe(1)
        expect(errors).toBe(0)
      }))
  }
)
