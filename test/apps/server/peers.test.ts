/**
 * Real third-party clients as the peers of our server: the official `openai`
 * SDK, and easyai's own `Client` / remote agent, each talking to the real
 * listener (`ServerLive`) over a loopback socket, the server on a
 * `ScriptedChatModel`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Redacted, Schema, Stream } from "effect"
import {
  type ChatMessage,
  Client,
  ClientLive,
  easyai,
  PromptProgress,
  RemoteChatModel,
  type ServerLive,
  Session,
  SessionStack,
  Tool,
  UserMessage
} from "easyai"
import { presets } from "../../../src/domain/Sampling.js"
import { ScriptedChatModel } from "easyai/testing"
import OpenAI from "openai"
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionUserMessageParam
} from "openai/resources/chat/completions"
import { baseUrl, field, scriptedRequests, scriptedServer } from "../../support/server.js"
import { echo, weather } from "../../support/tools.js"

/** A server on a scripted model, with `echo` as its only server-side tool; the recorder stays readable. */
/** A server on scripted turns whose own toolbelt is `echo`. */
const scripted = (turns: ReadonlyArray<ScriptedChatModel.Turn>, options: Partial<ServerLive.Options<never>> = {}) =>
  scriptedServer(turns, { session: { withDefaultTools: false, tools: [echo] }, ...options })

const requests = scriptedRequests

// ---------------------------------------------------------------------------
// The openai SDK.

/** The official SDK pointed at the server under test (no retries: every failure shows at once). */
const sdk = (apiKey = "not-checked") =>
  Effect.map(baseUrl, (base) => new OpenAI({ baseURL: `${base}/v1`, apiKey, maxRetries: 0 }))

/** One SDK call; interrupting the fiber aborts the request. The SDK's rejection is the failure, as is. */
const call = <A>(run: (client: OpenAI, signal: AbortSignal) => Promise<A>, apiKey?: string) =>
  Effect.flatMap(sdk(apiKey), (client) => Effect.tryPromise({ try: (signal) => run(client, signal), catch: (error) => error }))

/** A non-streamed completion. */
const create = (body: ChatCompletionCreateParamsNonStreaming, apiKey?: string) =>
  call((client, signal) => client.chat.completions.create(body, { signal }), apiKey)

/** A streamed completion, every chunk the SDK's async iterable yields; `headers` go with the request. */
const createStream = (body: ChatCompletionCreateParamsStreaming, headers: Record<string, string> = {}) =>
  call(async (client, signal) => {
    const stream = await client.chat.completions.create(body, { signal, headers })
    const chunks: Array<ChatCompletionChunk> = []
    for await (const chunk of stream) chunks.push(chunk)
    return chunks
  })

const contentOf = (chunks: ReadonlyArray<ChatCompletionChunk>): string =>
  chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? "").join("")

/** The client's `get_weather`, run locally. */
const localWeather = (args: string): string => {
  const parsed: unknown = JSON.parse(args)
  return field(parsed, "city") === "Lisbon" ? "23 °C and sunny" : "unknown"
}

/** The model calls get_weather for Lisbon, then answers from its result. */
const lisbonWeatherTurns = [
  ScriptedChatModel.toolCall("get_weather", { city: "Lisbon" }, { id: "call_1" }),
  ScriptedChatModel.reply("It is 23 °C and sunny in Lisbon.")
]

/** The tool result the client sent back for call_1, as the model read it. */
const expectWeatherResult = (message: ChatMessage | undefined) =>
  expect(message?._tag === "ToolMessage" ? [message.toolCallId, message.name, message.content] : []).toEqual([
    "call_1",
    "get_weather",
    "23 °C and sunny"
  ])

describe("the openai SDK as a peer", () => {
  it.live("chat.completions.create: content, finish_reason and usage", () =>
    Effect.gen(function*() {
      const completion = yield* create({ model: "easyai", messages: [{ role: "user", content: "hi" }] })
      expect(completion.object).toBe("chat.completion")
      expect(completion.id).toMatch(/^chatcmpl-/)
      expect(completion.model).toBe("scripted")
      expect(completion.choices).toHaveLength(1)
      expect(completion.choices[0]?.message.role).toBe("assistant")
      expect(completion.choices[0]?.message.content).toBe("Hello there.")
      expect(completion.choices[0]?.finish_reason).toBe("stop")
      expect(completion.usage?.prompt_tokens).toBe(7)
      expect(completion.usage?.completion_tokens).toBe(3)
      expect(completion.usage?.total_tokens).toBe(10)
    }).pipe(Effect.provide(scripted([[...ScriptedChatModel.reply("Hello there."), ScriptedChatModel.usage(7, 3)]]))))

  it.live("stream: true is a plain OpenAI stream: the README's loop reads choices[0].delta of every chunk", () =>
    Effect.gen(function*() {
      const text = yield* call(async (client, signal) => {
        const stream = await client.chat.completions.create(
          { model: "gpt-4o-mini", messages: [{ role: "user", content: "echo ping" }], stream: true },
          { signal }
        )
        let answer = ""
        for await (const chunk of stream) {
          const [choice] = chunk.choices
          if (choice === undefined) throw new Error(`a chunk without a choice: ${JSON.stringify(chunk)}`)
          answer += choice.delta.content ?? ""
        }
        return answer
      })
      // The server-side tool ran; a plain client sees only the answer.
      expect(text).toBe("The echo said ping.")
      const result = (yield* requests)[1]?.messages.at(-1)
      expect(result?._tag === "ToolMessage" ? result.content : "").toBe("ping")
    }).pipe(Effect.provide(scripted([
      ScriptedChatModel.toolCall("echo", { text: "ping" }, { id: "call_e" }),
      ScriptedChatModel.reply("The echo said ping.")
    ]))))

  it.live("with X-Easyai-Events: on, easyai.* events reach the SDK as chunks with no choices, and the usage chunk ends it", () =>
    Effect.gen(function*() {
      const chunks = yield* createStream({
        model: "easyai",
        messages: [{ role: "user", content: "echo ping" }],
        stream: true,
        stream_options: { include_usage: true }
      }, { "X-Easyai-Events": "on" })
      const objects: ReadonlyArray<string> = chunks.map((chunk) => chunk.object)
      expect(objects).toContain("easyai.tool_call")
      expect(objects).toContain("easyai.tool_result")
      expect(chunks.filter((chunk) => chunk.object !== "chat.completion.chunk").every((chunk) => chunk.choices.length === 0))
        .toBe(true)
      expect(contentOf(chunks)).toBe("The echo said ping.")
      expect(chunks[0]?.choices[0]?.delta.role).toBe("assistant")
      const finishes = chunks.flatMap((chunk) => chunk.choices.flatMap((choice) => choice.finish_reason ?? []))
      expect(finishes).toEqual(["stop"])
      const last = chunks.at(-1)
      expect(last?.choices).toEqual([])
      expect(last?.usage?.prompt_tokens).toBe(7)
      expect(last?.usage?.completion_tokens).toBe(3)
    }).pipe(Effect.provide(scripted([
      ScriptedChatModel.toolCall("echo", { text: "ping" }, { id: "call_e" }),
      [...ScriptedChatModel.reply("The echo said ping."), ScriptedChatModel.usage(7, 3)]
    ]))))

  it.live("a client-tools round trip: tool_calls out, the tool result in, the model answers", () =>
    Effect.gen(function*() {
      const question: ChatCompletionUserMessageParam = { role: "user", content: "What is the weather in Lisbon?" }
      const first = yield* create({ model: "easyai", messages: [question], tools: [weather] })
      const choice = first.choices[0]
      expect(choice?.finish_reason).toBe("tool_calls")
      expect(choice?.message.content).toBeNull()
      const calls = choice?.message.tool_calls ?? []
      expect(calls).toHaveLength(1)
      const toolCall = calls[0]
      if (choice === undefined || toolCall?.type !== "function") return expect.fail("expected one function tool call")
      expect(toolCall.id).toBe("call_1")
      expect(toolCall.function.name).toBe("get_weather")
      expect(JSON.parse(toolCall.function.arguments)).toEqual({ city: "Lisbon" })

      const answer = yield* create({
        model: "easyai",
        messages: [
          question,
          // The assistant message exactly as the SDK returned it, as its docs show.
          choice.message,
          { role: "tool", tool_call_id: toolCall.id, content: localWeather(toolCall.function.arguments) }
        ],
        tools: [weather]
      })
      expect(answer.choices[0]?.message.content).toBe("It is 23 °C and sunny in Lisbon.")
      expect(answer.choices[0]?.finish_reason).toBe("stop")

      const seen = yield* requests
      expect(seen).toHaveLength(2)
      expect(seen[0]?.tools.map((tool) => tool.name)).toEqual(["get_weather"])
      const messages = seen[1]?.messages ?? []
      expect(messages.map((message) => message._tag)).toEqual(["SystemMessage", "UserMessage", "AssistantMessage", "ToolMessage"])
      const assistant = messages[2]
      expect(assistant?._tag === "AssistantMessage" ? assistant.toolCalls.map((c) => [c.id, c.name]) : []).toEqual([
        ["call_1", "get_weather"]
      ])
      expectWeatherResult(messages[3])
    }).pipe(Effect.provide(scripted(lisbonWeatherTurns))))

  it.live("stream: true with client tools: delta.tool_calls assemble into the call", () =>
    Effect.gen(function*() {
      const chunks = yield* createStream({
        model: "easyai",
        messages: [{ role: "user", content: "Weather in Paris and Rome?" }],
        tools: [weather],
        stream: true
      })
      const assembled = new Map<number, { id: string; name: string; arguments: string }>()
      for (const chunk of chunks) {
        for (const delta of chunk.choices[0]?.delta.tool_calls ?? []) {
          const so = assembled.get(delta.index) ?? { id: "", name: "", arguments: "" }
          assembled.set(delta.index, {
            id: so.id + (delta.id ?? ""),
            name: so.name + (delta.function?.name ?? ""),
            arguments: so.arguments + (delta.function?.arguments ?? "")
          })
        }
      }
      expect([...assembled.entries()]).toEqual([
        [0, { id: "call_a", name: "get_weather", arguments: "{\"city\":\"Paris\"}" }],
        [1, { id: "call_b", name: "get_weather", arguments: "{\"city\":\"Rome\"}" }]
      ])
      expect(contentOf(chunks)).toBe("")
      expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe("tool_calls")
    }).pipe(Effect.provide(scripted([[
      ScriptedChatModel.call("get_weather", { city: "Paris" }, "call_a"),
      ScriptedChatModel.call("get_weather", { city: "Rome" }, "call_b")
    ]]))))

  it.live("the SDK's stream() helper assembles a final completion through a server-side tool", () =>
    Effect.gen(function*() {
      const final = yield* call(async (client, signal) => {
        const runner = client.chat.completions.stream(
          { model: "easyai", messages: [{ role: "user", content: "echo ping" }], stream_options: { include_usage: true } },
          { signal }
        )
        const deltas: Array<string> = []
        runner.on("content", (delta) => deltas.push(delta))
        const completion = await runner.finalChatCompletion()
        return { completion, deltas: deltas.join("") }
      })
      expect(final.deltas).toBe("The echo said ping.")
      expect(final.completion.object).toBe("chat.completion")
      expect(final.completion.choices).toHaveLength(1)
      expect(final.completion.choices[0]?.message.content).toBe("The echo said ping.")
      expect(final.completion.choices[0]?.finish_reason).toBe("stop")
      expect(final.completion.usage?.completion_tokens).toBe(3)
    }).pipe(Effect.provide(scripted([
      ScriptedChatModel.toolCall("echo", { text: "ping" }, { id: "call_e" }),
      [...ScriptedChatModel.reply("The echo said ping."), ScriptedChatModel.usage(7, 3)]
    ]))))

  it.live("the SDK's runTools helper drives the client-tools round trip with a local function", () =>
    Effect.gen(function*() {
      const WeatherArgs = Schema.Struct({ city: Schema.String })
      const ran: Array<string> = []
      const content = yield* call((client, signal) =>
        client.chat.completions.runTools({
          model: "easyai",
          messages: [{ role: "user", content: "What is the weather in Lisbon?" }],
          tools: [{
            type: "function",
            function: {
              name: "get_weather",
              description: "The weather in a city.",
              parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
              parse: (text: string) => Schema.decodeUnknownSync(Schema.parseJson(WeatherArgs))(text),
              function: ({ city }: typeof WeatherArgs.Type) => {
                ran.push(city)
                return city === "Lisbon" ? "23 °C and sunny" : "unknown"
              }
            }
          }]
        }, { signal }).finalContent()
      )
      expect(ran).toEqual(["Lisbon"])
      expect(content).toBe("It is 23 °C and sunny in Lisbon.")
      const seen = yield* requests
      expect(seen).toHaveLength(2)
      expectWeatherResult(seen[1]?.messages.at(-1))
    }).pipe(Effect.provide(scripted(lisbonWeatherTurns))))

  it.live("models.list() returns the served model", () =>
    Effect.gen(function*() {
      const page = yield* call((client, signal) => client.models.list({ signal }))
      expect(page.data.map((model) => [model.id, model.object, model.owned_by])).toEqual([["scripted", "model", "easyai"]])
      expect(typeof page.data[0]?.created).toBe("number")
    }).pipe(Effect.provide(scripted([]))))

  it.live("response_format json_schema reaches the model as the answer's shape, json_object and text too", () =>
    Effect.gen(function*() {
      const schema = { type: "object", properties: { mood: { type: "string", enum: ["happy", "sad"] } }, required: ["mood"] }
      const shaped = yield* create({
        model: "easyai",
        messages: [{ role: "user", content: "How do you feel?" }],
        response_format: { type: "json_schema", json_schema: { name: "mood", schema, strict: true } }
      })
      expect(JSON.parse(shaped.choices[0]?.message.content ?? "")).toEqual({ mood: "happy" })
      yield* create({ model: "easyai", messages: [{ role: "user", content: "Any JSON" }], response_format: { type: "json_object" } })
      yield* create({ model: "easyai", messages: [{ role: "user", content: "Text" }], response_format: { type: "text" } })
      const [first, second, third] = yield* requests
      expect(first?.responseFormat).toEqual({ type: "json_schema", name: "mood", schema })
      expect(second?.responseFormat).toEqual({ type: "json_object" })
      expect(third?.responseFormat).toBeUndefined()
    }).pipe(Effect.provide(scripted([
      ScriptedChatModel.reply(`{"mood":"happy"}`),
      ScriptedChatModel.reply("{}"),
      ScriptedChatModel.reply("text")
    ]))))

  it.live("any model name means the one model served, as with llama-server", () =>
    Effect.gen(function*() {
      const answered = yield* create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] })
      expect(answered.choices[0]?.message.content).toBe("Welcome.")
      expect(answered.model).toBe("scripted")
    }).pipe(Effect.provide(scripted([ScriptedChatModel.reply("Welcome.")]))))

  it.live("the server's API key: the SDK's Bearer key is accepted, a wrong one is an AuthenticationError (401)", () =>
    Effect.gen(function*() {
      const accepted = yield* create({ model: "easyai", messages: [{ role: "user", content: "hi" }] }, "k")
      expect(accepted.choices[0]?.message.content).toBe("Welcome.")
      const listed = yield* call((client, signal) => client.models.list({ signal }), "k")
      expect(listed.data.map((model) => model.id)).toEqual(["scripted"])

      const refused = yield* Effect.flip(create({ model: "easyai", messages: [{ role: "user", content: "hi" }] }, "wrong"))
      if (!(refused instanceof OpenAI.AuthenticationError)) return expect.fail(`expected AuthenticationError, got ${String(refused)}`)
      expect(refused.status).toBe(401)
      expect(refused.code).toBe("invalid_api_key")
      expect(refused.message).toContain("this server needs an API key")
      const refusedList = yield* Effect.flip(call((client, signal) => client.models.list({ signal }), "wrong"))
      expect(refusedList instanceof OpenAI.AuthenticationError).toBe(true)
      // Only the accepted request reached the model.
      expect(yield* requests).toHaveLength(1)
    }).pipe(Effect.provide(scripted([ScriptedChatModel.reply("Welcome.")], { server: { apiKey: Redacted.make("k") } }))))
})

// ---------------------------------------------------------------------------
// easyai's own client.

/** Runs `body` with a `Client` on the server under test, built once the server is up. */
const withClient = <A, E, R>(body: Effect.Effect<A, E, R>) =>
  Effect.flatMap(baseUrl, (base) => Effect.provide(body, ClientLive.layer({ baseUrl: base, retries: 0 })))

/** A tool that lives on the client side only. */
const capital = Tool.make({
  name: "capital_of",
  description: "The capital city of a country.",
  parameters: Schema.Struct({ country: Schema.String }),
  handler: ({ country }) => Effect.succeed(country === "Portugal" ? "Lisbon" : "unknown")
})

const capitalTurns = [
  ScriptedChatModel.toolCall("capital_of", { country: "Portugal" }, { id: "call_cap" }),
  ScriptedChatModel.reply("The capital of Portugal is Lisbon.")
]

/** What the server's model saw of the client-side round trip. */
const expectClientToolRoundTrip = Effect.gen(function*() {
  const seen = yield* requests
  expect(seen).toHaveLength(2)
  // Client-tools mode: the model saw the client's tool, never the server's echo.
  expect(seen[0]?.tools.map((tool) => tool.name)).toEqual(["capital_of"])
  const result = seen[1]?.messages.at(-1)
  expect(result?._tag === "ToolMessage" ? [result.toolCallId, result.name, result.content] : []).toEqual([
    "call_cap",
    "capital_of",
    "Lisbon"
  ])
})

describe("the easyai Client as a peer", () => {
  it.live("chat streams the scripted reply as TextDeltas, then usage, then Finished", () =>
    withClient(Effect.gen(function*() {
      const client = yield* Client
      const events = Chunk.toArray(yield* Stream.runCollect(client.chat({ messages: [new UserMessage({ content: "hi" })], tools: [] })))
      const texts = events.flatMap((event) => (event._tag === "TextDelta" ? [event.text] : []))
      expect(texts.length).toBeGreaterThan(1)
      expect(texts.join("")).toBe("Hello from the server.")
      const usage = events.find((event) => event._tag === "Usage")
      expect(usage?._tag === "Usage" ? [usage.promptTokens, usage.completionTokens] : []).toEqual([5, 4])
      expect(events.at(-1)).toMatchObject({ _tag: "Finished", reason: "stop" })
      expect(events.filter((event) => event._tag === "Finished")).toHaveLength(1)
    })).pipe(Effect.provide(scripted([[...ScriptedChatModel.reply("Hello from the server."), ScriptedChatModel.usage(5, 4)]]))))

  it.live("the server's prompt progress arrives as PromptProgress, unless the client opts out", () =>
    Effect.gen(function*() {
      const base = yield* baseUrl
      const progressOf = (promptProgress: boolean) =>
        Effect.flatMap(Client, (client) => Stream.runCollect(client.chat({ messages: [new UserMessage({ content: "hi" })], tools: [] }))).pipe(
          Effect.map((events) => Chunk.toArray(events).flatMap((event) => (event._tag === "PromptProgress" ? [[event.processed, event.total]] : []))),
          Effect.provide(ClientLive.layer({ baseUrl: base, retries: 0, promptProgress }))
        )
      expect(yield* progressOf(true)).toEqual([[256, 1024], [1024, 1024]])
      expect(yield* progressOf(false)).toEqual([])
    }).pipe(Effect.provide(scripted([0, 1].map(() => [
      new PromptProgress({ processed: 256, total: 1024 }),
      new PromptProgress({ processed: 1024, total: 1024 }),
      ...ScriptedChatModel.reply("Read.")
    ])))))

  it.live("chat through a server-side tool: the easyai events it asks for are skipped, the answer arrives as text", () =>
    withClient(Effect.gen(function*() {
      const client = yield* Client
      const events = Chunk.toArray(yield* Stream.runCollect(client.chat({ messages: [new UserMessage({ content: "echo ping" })], tools: [] })))
      const texts = events.flatMap((event) => (event._tag === "TextDelta" ? [event.text] : []))
      expect(texts.join("")).toBe("The echo said ping.")
      expect(events.some((event) => event._tag === "ToolCallRequested")).toBe(false)
      expect(events.at(-1)).toMatchObject({ _tag: "Finished", reason: "stop" })
    })).pipe(Effect.provide(scripted([
      ScriptedChatModel.toolCall("echo", { text: "ping" }, { id: "call_e" }),
      ScriptedChatModel.reply("The echo said ping.")
    ]))))

  it.live("the management calls: models, tools, health, props, metrics", () =>
    withClient(Effect.gen(function*() {
      const client = yield* Client
      const models = yield* client.models
      expect(models.map((model) => [model.id, model.ownedBy])).toEqual([["scripted", "easyai"]])
      expect(typeof models[0]?.created).toBe("number")

      const tools = yield* client.tools
      expect(tools.map((tool) => [tool.name, tool.description])).toEqual([["echo", "Echo the text back.\nRequired: text."]])
      expect(field(tools[0]?.parameters, "properties", "text", "type")).toBe("string")

      const health = yield* client.health
      expect(health.status).toBe("ok")
      expect(health.details["model"]).toBe("scripted")

      const props = yield* client.props
      expect(field(props, "model")).toBe("scripted")
      expect(field(props, "preset")).toBe("precise")
      expect(field(props, "tools")).toEqual(["echo"])
      expect(field(props, "auth")).toBe(false)

      const metrics = yield* client.metrics
      expect(metrics).toContain("easyai_requests_total")
    })).pipe(Effect.provide(scripted([]))))

  it.live("setPreset(\"creative\") switches the preset /props reports and later requests use", () =>
    withClient(Effect.gen(function*() {
      const client = yield* Client
      yield* client.setPreset("creative")
      const props = yield* client.props
      expect(field(props, "preset")).toBe("creative")
      expect(field(props, "default_generation_settings")).toEqual({
        temperature: presets.creative.temperature,
        top_p: presets.creative.topP,
        top_k: presets.creative.topK,
        min_p: presets.creative.minP
      })
      yield* Stream.runDrain(client.chat({ messages: [new UserMessage({ content: "a poem" })], tools: [] }))
      expect((yield* requests)[0]?.sampling).toEqual(presets.creative)
    })).pipe(Effect.provide(scripted([ScriptedChatModel.reply("Roses.")]))))

  it.live("a SessionStack agent on RemoteChatModel runs its local tool between two server turns", () =>
    Effect.gen(function*() {
      const base = yield* baseUrl
      const stack = SessionStack.layer({
        model: RemoteChatModel.layerFrom({ baseUrl: base, model: "easyai", retries: 0 }),
        session: { withDefaultTools: false, tools: [capital] }
      })
      const turn = yield* Effect.provide(Effect.flatMap(Session, (session) => session.chat("What is the capital of Portugal?")), stack)
      expect(turn.text).toBe("The capital of Portugal is Lisbon.")
      expect(turn.hops).toBe(1)
      yield* expectClientToolRoundTrip
    }).pipe(Effect.provide(scripted(capitalTurns))))

  it.live("the easyai.remote façade: a client-side agent whose model is our server", () =>
    Effect.gen(function*() {
      const base = yield* baseUrl
      const agent = yield* Effect.acquireRelease(
        Effect.sync(() => easyai.remote(`${base}/v1`, "easyai").withDefaultTools(false).addTool(capital)),
        (agent) => Effect.promise(() => agent.close())
      )
      const answer = yield* agent.askEffect("What is the capital of Portugal?")
      expect(answer).toBe("The capital of Portugal is Lisbon.")
      yield* expectClientToolRoundTrip
    }).pipe(Effect.scoped, Effect.provide(scripted(capitalTurns))))
})
