/**
 * The endpoints around the chat: model and tool listings, health, the
 * configuration snapshot, metrics, the live preset switch, and the Ollama
 * listing endpoints some front-ends speak instead of OpenAI's.
 *
 * @module
 */
import { HttpServerResponse } from "@effect/platform"
import { Effect, Either, Ref, Schema } from "effect"
import { PresetName, presets } from "../../domain/Sampling.js"
import { version } from "../../version.js"
import { badRequest, toResponse } from "./ApiError.js"
import type { Load } from "./admission.js"
import type { ChatContext } from "./turnPipeline.js"
import { readJsonBody } from "./jsonBody.js"
import type { CorsPolicy } from "./originPolicy.js"
import { utf8Length } from "../../domain/utf8.js"

/** What the management endpoints report beyond the chat context. */
export interface ManagementContext extends ChatContext {
  readonly backend: string
  readonly contextSize: number | undefined
  readonly modelFile: string | undefined
  readonly modelBytes: number
  readonly parallel: number
  readonly queueLimit: number
  readonly auth: boolean
  readonly cors: CorsPolicy
  /** Seconds since the epoch when the server started. */
  readonly startedAt: number
}

/** The APIs this server answers, for `/health`'s `compat` block. */
export const compat = {
  openai: ["/v1/chat/completions", "/v1/completions", "/v1/embeddings", "/v1/models"],
  easyai: ["/v1/tools", "/v1/preset", "/props", "/metrics", "/health"],
  anthropic: ["/v1/messages", "/v1/messages/count_tokens"],
  ollama: ["/api/tags", "/api/show", "/api/chat", "/api/generate", "/api/embed"],
  mcp: ["/mcp"]
}

/**
 * A JSON answer as text with its length: node then sends the head and the
 * body in one write, as a bare `node:http` server does, where a byte body
 * without a length costs an encoding pass and a vectored write.
 */
const jsonText = (text: string, status = 200) =>
  HttpServerResponse.raw(text, { status, contentType: "application/json", contentLength: utf8Length(text) })

const json = (body: unknown, status = 200) => Effect.sync(() => jsonText(JSON.stringify(body), status))

/** The body of `GET /health` under `load`. */
export const healthText = (context: ManagementContext, load: Load): string =>
  JSON.stringify({
    status: "ok",
    model: context.modelId,
    backend: context.backend,
    ...(context.contextSize === undefined ? {} : { n_ctx: context.contextSize }),
    slots: { total: context.parallel, active: load.active, queued: load.queued, queue_limit: context.queueLimit },
    compat
  })

/** `GET /health`. */
export const health = (context: ManagementContext) =>
  Effect.map(context.admission.load, (load) => jsonText(healthText(context, load)))

/** `GET /v1/models`. */
export const models = (context: ManagementContext) =>
  json({
    object: "list",
    data: [{
      id: context.modelId,
      object: "model",
      created: context.startedAt,
      owned_by: "easyai",
      meta: { backend: context.backend, ...(context.contextSize === undefined ? {} : { n_ctx: context.contextSize }) }
    }]
  })

/** `GET /v1/tools`: the server-side toolbelt, as OpenAI function tools with their full descriptions. */
export const tools = (context: ManagementContext) =>
  Effect.flatMap(context.registry.specs, (specs) =>
    json({
      object: "list",
      data: specs.map((spec) => ({
        type: "function",
        function: { name: spec.name, description: spec.description, parameters: spec.parameters }
      }))
    }))

/** `GET /props`: the configuration snapshot. */
export const props = (context: ManagementContext) =>
  Effect.gen(function*() {
    const preset = yield* Ref.get(context.preset)
    const sampling = presets[preset]
    const specs = yield* context.registry.specs
    return yield* json({
      model: context.modelId,
      model_path: context.modelFile ?? null,
      backend: context.backend,
      n_ctx: context.contextSize ?? null,
      parallel: context.parallel,
      queue_limit: context.queueLimit,
      preset,
      default_generation_settings: {
        temperature: sampling.temperature,
        top_p: sampling.topP,
        top_k: sampling.topK,
        min_p: sampling.minP
      },
      inject_preamble: context.injectPreamble,
      tools: specs.map((spec) => spec.name),
      auth: context.auth,
      cors: context.cors,
      limits: { max_body_bytes: context.limits.maxBytes, max_json_depth: context.limits.maxDepth },
      build: { name: "easyai", version }
    })
  })

/** `GET /metrics`. */
export const metrics = (context: ManagementContext) =>
  Effect.map(
    Effect.flatMap(context.admission.load, context.metrics.render),
    (text) => HttpServerResponse.text(text, { contentType: "text/plain; version=0.0.4; charset=utf-8" })
  )

const PresetBody = Schema.Struct({ preset: PresetName })

/** `POST /v1/preset`: `{"preset": "creative"}` switches the default preset of later requests. */
export const setPreset = (context: ManagementContext) =>
  Effect.gen(function*() {
    const body = Schema.decodeUnknownEither(PresetBody)(yield* readJsonBody(context.limits))
    if (Either.isLeft(body)) {
      return yield* badRequest(`preset must be one of ${PresetName.literals.join(", ")}`, "preset")
    }
    yield* Ref.set(context.preset, body.right.preset)
    return yield* json({ preset: body.right.preset })
  }).pipe(Effect.catchTag("ApiError", (error) => Effect.succeed(toResponse(error))))

const ollamaModel = (context: ManagementContext) => ({
  name: context.modelId,
  model: context.modelId,
  modified_at: new Date(context.startedAt * 1000).toISOString(),
  size: context.modelBytes,
  digest: "",
  details: { format: "gguf", family: context.backend, families: [context.backend], parameter_size: "", quantization_level: "" }
})

/** `GET /api/tags` (Ollama). */
export const ollamaTags = (context: ManagementContext) => json({ models: [ollamaModel(context)] })

const ShowBody = Schema.Struct({ model: Schema.optional(Schema.String), name: Schema.optional(Schema.String) })

/** `POST /api/show` (Ollama). Errors use Ollama's `{"error": "…"}` shape. */
export const ollamaShow = (context: ManagementContext) =>
  Effect.gen(function*() {
    const body = Schema.decodeUnknownEither(ShowBody)(yield* readJsonBody(context.limits))
    const name = Either.isRight(body) ? body.right.model ?? body.right.name : undefined
    if (name === undefined) return yield* json({ error: "model is required" }, 400)
    return yield* json({
      modelfile: "",
      parameters: "",
      template: "",
      details: ollamaModel(context).details,
      model_info: {
        "general.name": context.modelId,
        ...(context.contextSize === undefined ? {} : { "general.context_length": context.contextSize })
      },
      capabilities: ["completion", "tools"]
    })
  }).pipe(Effect.catchTag("ApiError", (error) => json({ error: error.detail }, error.status)))
