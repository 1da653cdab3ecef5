/**
 * The flags of `easyai serve`, apart from the server so that parsing a
 * command line (or printing `--help`) loads no model or server code.
 *
 * @module
 */
import { Options } from "@effect/cli"
import { PresetName } from "../../domain/Sampling.js"
import { defaultIdleMinutes, defaultMaxSessions } from "../../layers/remoteSession/AgentSessionsLive.js"
import { defaultGraceSeconds, defaultHost, defaultPort, defaultQueueLimit, defaultTimeoutSeconds } from "../server/ServerOptions.js"
import * as GuardFlags from "./guardFlags.js"
import { mcpOption } from "./mcpServers.js"
import { settingsFileOption } from "./optionalField.js"
import * as ToolFlags from "./toolFlags.js"

const model = Options.text("model").pipe(
  Options.withAlias("m"),
  Options.withDescription("The GGUF model to serve: a file, or a URI downloaded once (hf:<user>/<repo>/<file>.gguf, https://…).")
)
const host = Options.text("host").pipe(
  Options.optional,
  Options.withDescription(`The address to listen on (default ${defaultHost}; 0.0.0.0 for every interface).`)
)
const port = Options.integer("port").pipe(Options.optional, Options.withDescription(`The port to listen on (default ${defaultPort}).`))
const parallel = Options.integer("parallel").pipe(
  Options.withAlias("np"),
  Options.optional,
  Options.withDescription("Generations that run at once (parallel sequences in the model's context; default 1).")
)
const queue = Options.integer("queue").pipe(
  Options.optional,
  Options.withDescription(`Requests that may wait for a free slot before the server answers 503 (default ${defaultQueueLimit}).`)
)
const apiKey = Options.redacted("api-key").pipe(
  Options.optional,
  Options.withDescription("Require `Authorization: Bearer <key>` on every path but /, /health and /metrics (env EASYAI_API_KEY).")
)
const alias = Options.text("alias").pipe(
  Options.withAlias("a"),
  Options.optional,
  Options.withDescription("The model name served at /v1/models (default: the file name).")
)
const ctx = Options.integer("ctx").pipe(
  Options.withAlias("c"),
  Options.optional,
  Options.withDescription("Context size in tokens (default: the model's training context, or as much of it as memory holds).")
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
  Options.optional,
  Options.withDescription(`Seconds a connection may stay silent in either direction before it is closed (default ${defaultTimeoutSeconds}).`)
)
const grace = Options.integer("grace").pipe(
  Options.optional,
  Options.withDescription(`Seconds running streams get to finish on SIGINT/SIGTERM before they are cut (default ${defaultGraceSeconds}).`)
)
const maxBody = Options.integer("max-body").pipe(
  Options.optional,
  Options.withDescription("The largest request body accepted, in bytes (default 8 MiB).")
)
const noInject = Options.boolean("no-inject").pipe(
  Options.withDescription("Do not add the date/time and memory preamble to system prompts, nor the clock notes to user messages (X-Easyai-Inject: on still forces them).")
)

const webuiTitle = Options.text("webui-title").pipe(
  Options.optional,
  Options.withDescription("The web UI's title, in its header and the browser tab (default easyai).")
)
const webuiPlaceholder = Options.text("webui-placeholder").pipe(
  Options.optional,
  Options.withDescription("The web UI's placeholder in the message box (default \"Message <title>…\").")
)
const sessionsDir = Options.directory("sessions-dir").pipe(
  Options.optional,
  Options.withDescription("Save the agent sessions of /rpc in this directory (one folder each), so a restarted server resumes them (default: kept in memory only).")
)
const maxSessions = Options.integer("max-sessions").pipe(
  Options.optional,
  Options.withDescription(`Agent sessions of /rpc held at once; opening one more evicts the least recently used idle one (default ${defaultMaxSessions}).`)
)
const sessionIdle = Options.integer("session-idle").pipe(
  Options.optional,
  Options.withDescription(`Minutes an unused agent session of /rpc lives before it is forgotten, with its saved conversation (default ${defaultIdleMinutes}).`)
)

/** The flags of `easyai serve`. */
export const serveFlags = {
  config: settingsFileOption("[SERVER], [ENGINE], [MODEL_<pattern>]"),
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
  webAllow: ToolFlags.webAllow,
  isolate: ToolFlags.isolate,
  toolEnv: ToolFlags.toolEnv,
  timeout,
  grace,
  maxBody,
  cors: GuardFlags.cors,
  allowedHosts: GuardFlags.allowedHosts,
  bodyTimeout: GuardFlags.bodyTimeout,
  maxClientConnections: GuardFlags.maxClientConnections,
  noTools: ToolFlags.noTools,
  noInject,
  webuiTitle,
  webuiPlaceholder,
  mcp: mcpOption,
  sessionsDir,
  maxSessions,
  sessionIdle
}

