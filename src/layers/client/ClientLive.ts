/**
 * The `Client` on `@effect/platform`'s HttpClient over undici: chat turns
 * streamed over SSE (or read whole when the server answers JSON) and the
 * server-management calls, all under one retry policy and one inactivity
 * timeout.
 *
 * ```ts
 * const client = ClientLive.layer({ baseUrl: "http://ai.local:8080", apiKey: Redacted.make(key) })
 * const fromEnv = ClientLive.layerConfig() // EASYAI_URL, EASYAI_API_KEY, EASYAI_TIMEOUT, EASYAI_HTTP_RETRIES
 * ```
 *
 * @module
 */
import { HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import { type ConfigError, Effect, Either, identity, Layer, Schema, type Scope, Stream } from "effect"
import {
  type ClientConfig,
  clientConfig,
  configProblems,
  endpoints,
  inactivityTimeout,
  retriesOf
} from "../../domain/ClientConfig.js"
import { type ChatModelError, ConfigurationError, ModelError } from "../../domain/errors.js"
import { type ClientError, InvalidResponseError } from "../../domain/httpErrors.js"
import type { ModelEvent } from "../../domain/ModelEvent.js"
import { EmbeddingList, vectorFromBase64 } from "../../domain/openai/Embeddings.js"
import type { PresetName } from "../../domain/Sampling.js"
import type { ChatRequest } from "../../services/ChatModel.js"
import { Client, type Health, type RemoteModel, type RemoteTool, type Service } from "../../services/Client.js"
import { completionEvents, TurnAssembler } from "./assemble.js"
import { type FailureContext, statusFailure, transportFailure } from "./failures.js"
import * as Sse from "./sse.js"
import * as HttpClientLive from "../http/HttpClientLive.js"
import { makeTransport, type SendFailure, type Transport } from "./transport.js"
import { Completion, CompletionChunk, ModelList } from "../../domain/openai/ChatCompletions.js"
import { AnyObject, requestBody, ToolList } from "./wire.js"

/** The longest piece of a bad body quoted in an error. */
const maxQuoted = 200

const quote = (text: string): string => (text.length > maxQuoted ? `${JSON.stringify(text.slice(0, maxQuoted))}…` : JSON.stringify(text))

const decodeChunk = Schema.decodeUnknownEither(Schema.parseJson(CompletionChunk))
const decodeCompletion = Schema.decodeUnknownEither(Schema.parseJson(Completion))

const chatFailure = (failure: SendFailure, sentKey: boolean): ChatModelError => {
  const context: FailureContext = { attempts: failure.attempts, sentKey }
  return failure.error._tag === "HttpStatusError"
    ? statusFailure(failure.error, context)
    : transportFailure(failure.error, context)
}

/** The events of a streamed (SSE) response. */
const streamedEvents = (
  transport: Transport,
  response: HttpClientResponse.HttpClientResponse,
  context: FailureContext
): Stream.Stream<ModelEvent, ChatModelError> =>
  Stream.suspend(() => {
    // Owned by this one run of the stream.
    const assembler = new TurnAssembler()
    let sawDone = false
    const bytes = transport.body(response).pipe(Stream.mapError((error) => transportFailure(error, context)))
    const step = (message: Sse.SseMessage): Either.Either<ReadonlyArray<ModelEvent>, ChatModelError> => {
      if (message._tag === "Done") {
        sawDone = true
        return Either.right([])
      }
      const chunk = decodeChunk(message.data)
      if (Either.isLeft(chunk)) {
        return Either.left(
          new ModelError({ reason: "BadResponse", detail: `the server sent a malformed chunk: ${quote(message.data)}`, cause: chunk.left })
        )
      }
      return assembler.push(chunk.right)
    }
    return Sse.messages(bytes).pipe(
      Stream.mapEffect(step),
      Stream.concat(Stream.suspend(() => Stream.fromEffect(assembler.finish(sawDone)))),
      Stream.flattenIterables
    )
  })

/** The events of a whole JSON completion, for servers that do not stream. */
const wholeEvents = (
  transport: Transport,
  response: HttpClientResponse.HttpClientResponse,
  context: FailureContext
): Stream.Stream<ModelEvent, ChatModelError> =>
  Stream.fromEffect(Effect.gen(function*() {
    const text = yield* transport.text(response).pipe(Effect.mapError((error) => transportFailure(error, context)))
    const completion = decodeCompletion(text)
    if (Either.isLeft(completion)) {
      return yield* new ModelError({ reason: "BadResponse", detail: `the server sent a malformed completion: ${quote(text)}`, cause: completion.left })
    }
    return yield* completionEvents(completion.right)
  })).pipe(Stream.flattenIterables)

const toRemoteModel = (entry: typeof ModelList.Type["data"][number]): RemoteModel => ({
  id: entry.id,
  ...(entry.owned_by === undefined || entry.owned_by === null ? {} : { ownedBy: entry.owned_by }),
  ...(entry.created === undefined || entry.created === null ? {} : { created: entry.created })
})

const toRemoteTools = (list: ToolList, url: string): Either.Either<ReadonlyArray<RemoteTool>, InvalidResponseError> => {
  const entries = "data" in list ? list.data : "tools" in list ? list.tools : list
  const tools: Array<RemoteTool> = []
  for (const [position, entry] of entries.entries()) {
    const name = entry.function?.name ?? entry.name ?? undefined
    if (name === undefined || name === "") {
      return Either.left(new InvalidResponseError({ url, detail: `tool ${position} has no name` }))
    }
    tools.push({
      name,
      description: entry.function?.description ?? entry.description ?? "",
      parameters: entry.function?.parameters ?? entry.parameters ?? {}
    })
  }
  return Either.right(tools)
}

const healthOf = (text: string): Health => {
  const parsed = Schema.decodeUnknownEither(Schema.parseJson(AnyObject))(text)
  if (Either.isLeft(parsed)) {
    const said = text.trim().slice(0, 100)
    return { status: said === "" ? "ok" : said, details: {} }
  }
  const status = parsed.right["status"]
  return { status: typeof status === "string" ? status : "ok", details: parsed.right }
}

/**
 * Builds the client on the one HTTP stack (`HttpClientLive`, with the
 * config's TLS and the `TransformClient` in context); its sockets live as
 * long as the scope.
 */
export const make = (config: ClientConfig): Effect.Effect<Service, ConfigurationError, Scope.Scope> =>
  Effect.gen(function*() {
    const problems = configProblems(config)
    if (problems.length > 0) return yield* new ConfigurationError({ message: `remote client: ${problems.join("; ")}` })
    const urls = endpoints(config.baseUrl)
    const apiKey = config.apiKey
    const transport = makeTransport(
      yield* HttpClientLive.make({ tls: config.tls }),
      { retries: retriesOf(config), timeout: inactivityTimeout(config) },
      (request) => {
        const withAgent = HttpClientRequest.setHeader(request, "user-agent", "easyai")
        return apiKey === undefined ? withAgent : HttpClientRequest.bearerToken(withAgent, apiKey)
      }
    )
    const sentKey = apiKey !== undefined

    const chat = (request: ChatRequest): Stream.Stream<ModelEvent, ChatModelError> =>
      Stream.unwrapScoped(Effect.gen(function*() {
        const http = yield* HttpClientRequest.post(urls.chat).pipe(
          HttpClientRequest.setHeader("accept", "text/event-stream, application/json"),
          // One side stamps the time: the one that composed the conversation (see ClientConfig.serverPreamble).
          config.serverPreamble === true ? identity : HttpClientRequest.setHeader("x-easyai-inject", "off"),
          HttpClientRequest.bodyJson(requestBody(request, config)),
          Effect.mapError((error) =>
            new ModelError({ reason: "Unavailable", detail: "the request body cannot be encoded as JSON", cause: error })
          )
        )
        const sent = yield* transport.send(http).pipe(Effect.mapError((failure) => chatFailure(failure, sentKey)))
        // Failures from here on are mid-response: one attempt, never retried.
        const context: FailureContext = { attempts: 1, sentKey }
        const contentType = (sent.response.headers["content-type"] ?? "").toLowerCase()
        return contentType.includes("application/json")
          ? wholeEvents(transport, sent.response, context)
          : streamedEvents(transport, sent.response, context)
      })).pipe(Stream.withSpan("Client.chat"))

    /** Sends a request and reads the whole body as text. */
    const fetchText = (request: HttpClientRequest.HttpClientRequest): Effect.Effect<string, ClientError> =>
      Effect.scoped(
        Effect.flatMap(
          Effect.mapError(transport.send(request), (failure) => failure.error),
          (sent) => transport.text(sent.response)
        )
      )

    const fetchJson = <A, I>(url: string, schema: Schema.Schema<A, I>): Effect.Effect<A, ClientError> =>
      Effect.flatMap(fetchText(HttpClientRequest.get(url, { acceptJson: true })), (text) =>
        Effect.mapError(
          Schema.decodeUnknown(Schema.parseJson(schema))(text),
          (error) => new InvalidResponseError({ url, detail: error.message })
        ))

    /** A JSON body POSTed to `url`, the answer decoded with `schema`. */
    const postJson = <A, I>(url: string, body: unknown, schema: Schema.Schema<A, I>): Effect.Effect<A, ClientError> =>
      HttpClientRequest.post(url, { acceptJson: true }).pipe(
        HttpClientRequest.bodyJson(body),
        Effect.mapError((error) => new InvalidResponseError({ url, detail: `cannot encode the request: ${error.reason._tag}` })),
        Effect.flatMap(fetchText),
        Effect.flatMap((text) =>
          Effect.mapError(
            Schema.decodeUnknown(Schema.parseJson(schema))(text),
            (error) => new InvalidResponseError({ url, detail: error.message })
          )
        )
      )

    const embeddings = Effect.fn("Client.embeddings")(function*(texts: ReadonlyArray<string>) {
      const list = yield* postJson(urls.embeddings, { model: config.model, input: texts, encoding_format: "float" }, EmbeddingList)
      const vectors = [...list.data].sort((a, b) => a.index - b.index)
        .map((item) => (typeof item.embedding === "string" ? vectorFromBase64(item.embedding) : item.embedding))
      if (vectors.length !== texts.length) {
        return yield* new InvalidResponseError({ url: urls.embeddings, detail: `${vectors.length} vectors for ${texts.length} texts` })
      }
      return { vectors, tokens: list.usage?.prompt_tokens ?? 0 }
    })

    const setPreset = Effect.fn("Client.setPreset")(function*(name: PresetName) {
      const request = yield* HttpClientRequest.post(urls.preset, { acceptJson: true }).pipe(
        HttpClientRequest.bodyJson({ preset: name }),
        Effect.mapError((error) => new InvalidResponseError({ url: urls.preset, detail: `cannot encode the preset request: ${error.reason._tag}` }))
      )
      yield* fetchText(request)
    })

    return {
      info: Effect.succeed({ name: config.model ?? urls.root, backend: "remote" }),
      chat,
      models: fetchJson(urls.models, ModelList).pipe(
        Effect.map((list) => list.data.map(toRemoteModel)),
        Effect.withSpan("Client.models")
      ),
      tools: fetchJson(urls.tools, ToolList).pipe(
        Effect.flatMap((list) => toRemoteTools(list, urls.tools)),
        Effect.withSpan("Client.tools")
      ),
      health: fetchText(HttpClientRequest.get(urls.health, { acceptJson: true })).pipe(
        Effect.map(healthOf),
        Effect.withSpan("Client.health")
      ),
      props: fetchJson(urls.props, Schema.Unknown).pipe(Effect.withSpan("Client.props")),
      metrics: fetchText(HttpClientRequest.get(urls.metrics)).pipe(Effect.withSpan("Client.metrics")),
      setPreset,
      embeddings
    } satisfies Service
  })

/** The client for `config`. Fails when the configuration cannot work (a bad URL, an unreadable CA file). */
export const layer = (config: ClientConfig): Layer.Layer<Client, ConfigurationError> => Layer.scoped(Client, make(config))

/**
 * The client configured from the environment (`EASYAI_URL`, `EASYAI_API_KEY`,
 * `EASYAI_TIMEOUT`, `EASYAI_HTTP_RETRIES`, `EASYAI_CA_FILE`,
 * `EASYAI_TLS_INSECURE`, `EASYAI_EXTRA_BODY`), `overrides` taking precedence.
 */
export const layerConfig = (
  overrides: Partial<ClientConfig> = {}
): Layer.Layer<Client, ConfigError.ConfigError | ConfigurationError> =>
  Layer.unwrapEffect(Effect.map(clientConfig(overrides), layer))
