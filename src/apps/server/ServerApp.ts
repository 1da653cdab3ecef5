/**
 * The OpenAI-compatible server as a value: an `HttpApp` built from the
 * services in context (`ChatModel`, `Agent`, `ToolRegistry`, `Preamble`),
 * ready to be served on a socket (`ServerLive`) or driven in-process by
 * tests.
 *
 * ```ts
 * const app = yield* ServerApp.make({ parallel: 2, apiKey: Redacted.make(key) })
 * ```
 *
 * @module
 */
import { type HttpApp, HttpRouter } from "@effect/platform"
import { Clock, Context, Effect, Layer, Ref, type Scope } from "effect"
import { stat } from "node:fs/promises"
import { defaultPreset } from "../../domain/Sampling.js"
import { builtinSystemPrompt } from "../../domain/SystemPrompt.js"
import { Agent } from "../../services/Agent.js"
import { ChatModel } from "../../services/ChatModel.js"
import { Embedder } from "../../services/Embedder.js"
import { Engine } from "../../services/Engine.js"
import { Preamble } from "../../services/Preamble.js"
import { ToolRegistry } from "../../services/ToolRegistry.js"
import * as AgentSessionsLive from "../../layers/remoteSession/AgentSessionsLive.js"
import { AgentSessions } from "../../services/AgentSessions.js"
import * as AgentRpc from "./agentRpc.js"
import { answerRoutingFailures } from "./ApiError.js"
import * as McpServerApp from "../mcp/McpServerApp.js"
import * as Admission from "./admission.js"
import * as AnthropicMessages from "./anthropicMessages.js"
import { chatCompletions } from "./chatCompletions.js"
import { completions } from "./completions.js"
import { embeddings, ollamaEmbed } from "./embeddings.js"
import { defaultBodyLimits } from "./jsonBody.js"
import * as Management from "./management.js"
import * as Metrics from "./metrics.js"
import { ollamaChat, ollamaGenerate } from "./ollamaChat.js"
import { noCrossOrigin } from "./originPolicy.js"
import { cors, refuseForeignOrigins, requireApiKey } from "./security.js"
import { defaultQueueLimit, type ServerOptions } from "./ServerOptions.js"
import type { ChatContext } from "./turnPipeline.js"
import * as WebUi from "./webui.js"

/** The app and the state a listener needs to stop it gracefully. */
export interface Service {
  readonly app: HttpApp.Default
  /** The generation gate: its load tells when running requests have drained. */
  readonly admission: Admission.Admission
  /**
   * The body of `GET /health`, counted as one answered request: for a
   * listener that answers the liveness probe before the Effect stack.
   */
  readonly probe: () => string
  /** The resolved identity and settings, for banners. */
  readonly summary: {
    readonly modelId: string
    readonly backend: string
    readonly contextSize: number | undefined
    readonly parallel: number
    readonly tools: ReadonlyArray<string>
    readonly auth: boolean
    readonly cors: Management.ManagementContext["cors"]
  }
}

/** The app being served, for banners and tests. */
export class ServerApp extends Context.Tag("easyai/ServerApp")<ServerApp, Service>() {}

const fileSize = (path: string | undefined) =>
  path === undefined
    ? Effect.succeed(0)
    : Effect.orElseSucceed(Effect.tryPromise(() => stat(path)).pipe(Effect.map((info) => info.size)), () => 0)

/** Builds the app from the services in context; the remote sessions of `/rpc` live as long as the scope. */
export const make = (
  options: ServerOptions = {}
): Effect.Effect<Service, never, ChatModel | Agent | ToolRegistry | Preamble | Scope.Scope> =>
  Effect.gen(function*() {
    const model = yield* ChatModel
    const registry = yield* ToolRegistry
    const info = yield* model.info
    const parallel = Math.max(1, options.parallel ?? 1)
    const queueLimit = Math.max(0, options.queueLimit ?? defaultQueueLimit)
    const admission = yield* Admission.make(parallel, queueLimit)
    const metrics = yield* Metrics.make
    const modelId = options.modelAlias ?? info.name
    const corsPolicy = options.cors ?? noCrossOrigin
    const chat: ChatContext = {
      model,
      agent: yield* Agent,
      registry,
      preamble: yield* Preamble,
      admission,
      metrics,
      preset: yield* Ref.make(options.preset ?? defaultPreset),
      sampling: options.sampling ?? {},
      maxTokens: options.maxTokens,
      limits: { ...defaultBodyLimits, ...options.limits },
      modelId,
      system: options.system ?? builtinSystemPrompt,
      systemAppend: options.systemAppend ?? [],
      injectPreamble: options.injectPreamble ?? true
    }
    const context: Management.ManagementContext = {
      ...chat,
      backend: info.backend,
      contextSize: info.contextSize,
      modelFile: options.modelFile,
      modelBytes: yield* fileSize(options.modelFile),
      parallel,
      queueLimit,
      auth: options.apiKey !== undefined,
      cors: corsPolicy,
      startedAt: Math.floor((yield* Clock.currentTimeMillis) / 1000)
    }

    // The page, the liveness probe and the scrape target stay open; everything else needs the key when one is set.
    const open = HttpRouter.empty.pipe(
      HttpRouter.get("/", yield* WebUi.make(options.webui)),
      HttpRouter.get("/health", Management.health(context)),
      HttpRouter.get("/metrics", Management.metrics(context))
    )
    const mcp = yield* McpServerApp.makeTransport()
    const sessions = yield* Effect.map(
      Layer.build(AgentSessionsLive.layer({
        ...options.agentSessions,
        session: {
          preset: options.preset ?? defaultPreset,
          systemAppend: chat.systemAppend,
          ...(options.system === undefined ? {} : { system: options.system })
        }
      })),
      (built) => Context.get(built, AgentSessions)
    )
    const embedding = { embedder: yield* Effect.serviceOption(Embedder), modelId, limits: chat.limits, admission }
    const rpc = yield* AgentRpc.make(sessions, admission, metrics, chat.limits)
    const guarded = HttpRouter.empty.pipe(
      HttpRouter.concat(McpServerApp.routes(mcp.transport)),
      HttpRouter.post("/rpc", rpc),
      HttpRouter.get("/props", Management.props(context)),
      HttpRouter.get("/v1/models", Management.models(context)),
      HttpRouter.get("/v1/tools", Management.tools(context)),
      HttpRouter.post("/v1/preset", Management.setPreset(context)),
      HttpRouter.post("/v1/chat/completions", chatCompletions(chat)),
      HttpRouter.post("/v1/completions", completions(chat, yield* Effect.serviceOption(Engine))),
      HttpRouter.post("/v1/messages", AnthropicMessages.messages(chat)),
      HttpRouter.post("/v1/messages/count_tokens", AnthropicMessages.countTokens(chat, yield* Effect.serviceOption(Engine))),
      HttpRouter.post("/v1/embeddings", embeddings(embedding)),
      HttpRouter.post("/api/embed", ollamaEmbed(embedding)),
      HttpRouter.get("/api/tags", Management.ollamaTags(context)),
      HttpRouter.post("/api/show", Management.ollamaShow(context)),
      HttpRouter.post("/api/chat", ollamaChat(chat)),
      HttpRouter.post("/api/generate", ollamaGenerate(chat))
    )
    const router = HttpRouter.concat(
      open,
      options.apiKey === undefined ? guarded : HttpRouter.use(guarded, requireApiKey(options.apiKey))
    )

    const routed = answerRoutingFailures((request) =>
      `no route for ${request.method} ${new URL(request.url, "http://server").pathname}`
    )(router)
    const counted = Effect.tap(refuseForeignOrigins(corsPolicy)(routed), (response) => metrics.request(response.status))
    const app: HttpApp.Default = cors(corsPolicy)(counted)

    const probe = Effect.zipLeft(Effect.map(admission.load, (load) => Management.healthText(context, load)), metrics.request(200))
    return {
      app,
      admission,
      probe: () => Effect.runSync(probe),
      summary: {
        modelId,
        backend: info.backend,
        contextSize: info.contextSize,
        parallel,
        tools: (yield* registry.specs).map((spec) => spec.name),
        auth: context.auth,
        cors: corsPolicy
      }
    }
  })
