/**
 * `easyai serve`: the OpenAI-compatible HTTP server on a local GGUF model.
 *
 * @module
 */
import { Command, Options } from "@effect/cli"
import { HttpServer } from "@effect/platform"
import { Console, Effect, Option, type Redacted } from "effect"
import { basename, extname } from "node:path"
import { PresetName } from "../../domain/Sampling.js"
import { isModelUri } from "../../layers/engine/resolveModel.js"
import * as LocalChatModel from "../../layers/model/LocalChatModel.js"
import * as ServerApp from "../server/ServerApp.js"
import { reportFailure } from "./failure.js"
import { optionalField } from "./optionalField.js"
import * as ToolFlags from "./toolFlags.js"
import { mcpApiKey, mcpOption, parseMcpServer } from "./mcpServers.js"
import * as ServerLive from "../server/ServerLive.js"
import {
  defaultGraceSeconds,
  defaultHost,
  defaultPort,
  defaultQueueLimit,
  defaultTimeoutSeconds
} from "../server/ServerOptions.js"

const model = Options.text("model").pipe(
  Options.withAlias("m"),
  Options.withDescription("The GGUF model to serve: a file, or a URI downloaded once (hf:<user>/<repo>/<file>.gguf, https://…).")
)
const host = Options.text("host").pipe(
  Options.withDefault(defaultHost),
  Options.withDescription("The address to listen on (0.0.0.0 for every interface).")
)
const port = Options.integer("port").pipe(Options.withDefault(defaultPort), Options.withDescription("The port to listen on."))
const parallel = Options.integer("parallel").pipe(
  Options.withAlias("np"),
  Options.withDefault(1),
  Options.withDescription("Generations that run at once (parallel sequences in the model's context).")
)
const queue = Options.integer("queue").pipe(
  Options.withDefault(defaultQueueLimit),
  Options.withDescription("Requests that may wait for a free slot before the server answers 503.")
)
const apiKey = ToolFlags.apiKey("Require `Authorization: Bearer <key>` on every path but /, /health and /metrics (env EASYAI_API_KEY).")
const alias = Options.text("alias").pipe(
  Options.withAlias("a"),
  Options.optional,
  Options.withDescription("The model name served at /v1/models (default: the file name).")
)
const ctx = Options.integer("ctx").pipe(
  Options.withAlias("c"),
  Options.optional,
  Options.withDescription("Context size in tokens (default: the model's, at most 4096).")
)
const threads = Options.integer("threads").pipe(
  Options.withAlias("t"),
  Options.optional,
  Options.withDescription("CPU threads for generation (default: the number of cores).")
)
const preset = Options.choice("preset", PresetName.literals).pipe(
  Options.optional,
  Options.withDescription("The sampling preset of requests that set none (default precise).")
)
const system = Options.text("system").pipe(
  Options.withAlias("s"),
  Options.optional,
  Options.withDescription("The system prompt of requests that bring none (replaces the built-in one).")
)
const systemFile = Options.fileText("system-file").pipe(
  Options.optional,
  Options.withDescription("Read that system prompt from a file.")
)
const timeout = Options.integer("http-timeout").pipe(
  Options.withDefault(defaultTimeoutSeconds),
  Options.withDescription("Seconds a connection may stay silent in either direction before it is closed.")
)
const grace = Options.integer("grace").pipe(
  Options.withDefault(defaultGraceSeconds),
  Options.withDescription("Seconds running streams get to finish on SIGINT/SIGTERM before they are cut.")
)
const maxBody = Options.integer("max-body").pipe(
  Options.optional,
  Options.withDescription("The largest request body accepted, in bytes (default 8 MiB).")
)
const cors = Options.text("cors").pipe(
  Options.optional,
  Options.withDescription("Browser origins admitted: *, localhost, or a comma-separated list (default: * without host tools, localhost with them).")
)
const noInject = Options.boolean("no-inject").pipe(
  Options.withDescription("Do not append the date/time and memory preamble to system prompts (X-Easyai-Inject: on still forces it).")
)

const corsPolicy = (text: string) => {
  const trimmed = text.trim()
  return trimmed === "*" || trimmed === "localhost" ? trimmed : trimmed.split(",").map((origin) => origin.trim()).filter((origin) => origin !== "")
}

const flags = {
  model,
  host,
  port,
  parallel,
  queue,
  apiKey,
  alias,
  ctx,
  threads,
  preset,
  system,
  systemFile,
  sandbox: ToolFlags.sandbox,
  allowBash: ToolFlags.allowBash,
  noPython: ToolFlags.noPython,
  timeout,
  grace,
  maxBody,
  cors,
  noTools: ToolFlags.noTools,
  noInject,
  mcp: mcpOption
}

type Flags = Command.Command.ParseConfig<typeof flags>

/** The name served at /v1/models when no --alias is given: the model file's name without `.gguf`. */
const defaultAlias = (model: string): string => {
  const name = basename(model, extname(model))
  return isModelUri(model) ? name.replaceAll(":", "-") : name
}

/** The whole server the flags describe. */
const serverLayer = (flag: Flags, mcpKey: Option.Option<Redacted.Redacted<string>>) =>
  ServerLive.layer({
    ...(flag.mcp.length === 0 ? {} : { mcp: { servers: flag.mcp.map((text) => parseMcpServer(text, mcpKey)) } }),
    model: LocalChatModel.layerFrom({
      modelPath: flag.model,
      sequences: Math.max(1, flag.parallel),
      ...optionalField("contextSize", flag.ctx),
      ...optionalField("threads", flag.threads)
    }),
    ...(flag.noTools ? { session: { withDefaultTools: false } } : {}),
    ...ToolFlags.hostOption(flag),
    server: {
      modelFile: flag.model,
      modelAlias: Option.getOrElse(flag.alias, () => defaultAlias(flag.model)),
      parallel: flag.parallel,
      queueLimit: flag.queue,
      injectPreamble: !flag.noInject,
      ...optionalField("apiKey", flag.apiKey),
      ...optionalField("preset", flag.preset),
      ...optionalField("system", Option.orElse(flag.system, () => Option.map(flag.systemFile, ([, text]) => text))),
      ...optionalField("cors", Option.map(flag.cors, corsPolicy)),
      ...optionalField("limits", Option.map(flag.maxBody, (maxBytes) => ({ maxBytes })))
    },
    listen: { host: flag.host, port: flag.port, timeoutSeconds: flag.timeout, graceSeconds: flag.grace }
  })

/** The startup banner: where, what, how. */
const banner = (served: ServerApp.Service, address: HttpServer.Address): string => {
  const url = address._tag === "TcpAddress" ? `http://${address.hostname}:${address.port}` : address.path
  const { summary } = served
  const context = summary.contextSize === undefined ? "" : `, ctx ${summary.contextSize}`
  const cors = typeof summary.cors === "string" ? summary.cors : summary.cors.join(",")
  return [
    `easyai serve · ${url}`,
    `  model    ${summary.modelId} (${summary.backend}${context})`,
    `  parallel ${summary.parallel} · tools ${summary.tools.length} · auth ${summary.auth ? "on" : "off"} · cors ${cors}`
  ].join("\n")
}

/** `easyai serve`. */
export const serveCommand = Command.make("serve", flags, (flag) =>
  Effect.gen(function*() {
    yield* ToolFlags.checkHostFlags(flag)
    const mcpKey = yield* mcpApiKey
    yield* Effect.gen(function*() {
      yield* Console.log(banner(yield* ServerApp.ServerApp, (yield* HttpServer.HttpServer).address))
      return yield* Effect.never
    }).pipe(Effect.provide(serverLayer(flag, mcpKey)))
  }).pipe(reportFailure("easyai serve"))).pipe(
    Command.withDescription("Serve a GGUF model over an OpenAI-compatible HTTP API (/v1/chat/completions).")
  )
