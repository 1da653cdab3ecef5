/**
 * `easyai serve`: the OpenAI-compatible HTTP server on a local GGUF model.
 *
 * @module
 */
import type { Command } from "@effect/cli"
import type { serveFlags } from "./serveFlags.js"
import { HttpServer } from "@effect/platform"
import { Console, Duration, Effect, Option, type Redacted } from "effect"
import { readFile } from "node:fs/promises"
import { ConfigurationError } from "../../domain/errors.js"
import { defaultGraceSeconds, defaultHost, defaultPort, defaultQueueLimit, defaultTimeoutSeconds } from "../server/ServerOptions.js"
import { describeCorsPolicy } from "../server/originPolicy.js"
import * as SettingsFile from "./config.js"
import * as GuardFlags from "./guardFlags.js"
import { basename, extname } from "node:path"
import { isModelUri } from "../../layers/engine/resolveModel.js"
import * as LocalChatModel from "../../layers/model/LocalChatModel.js"
import * as ServerApp from "../server/ServerApp.js"
import { progressOption } from "./downloadProgress.js"
import { reportFailure } from "./failure.js"
import { envSecret, fill, nonBlank, optionalField } from "./optionalField.js"
import * as ToolFlags from "./toolFlags.js"
import { mcpApiKey, parseMcpServer } from "./mcpServers.js"
import * as ServerLive from "../server/ServerLive.js"
import { directoryStore } from "../server/sessionStore.js"

/** What `easyai serve`'s flags parsed to. */
export type Flags = Command.Command.ParseConfig<typeof serveFlags>

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
      ...progressOption(),
      sequences: Math.max(1, Option.getOrElse(flag.parallel, () => 1)),
      ...optionalField("contextSize", flag.ctx),
      ...optionalField("threads", flag.threads)
    }),
    ...(flag.noTools ? { session: { withDefaultTools: false } } : {}),
    ...ToolFlags.hostOption(flag),
    ...ToolFlags.webOption(flag),
    server: {
      modelFile: flag.model,
      modelAlias: Option.getOrElse(flag.alias, () => defaultAlias(flag.model)),
      parallel: Option.getOrElse(flag.parallel, () => 1),
      queueLimit: Option.getOrElse(flag.queue, () => defaultQueueLimit),
      injectPreamble: !flag.noInject,
      webui: { ...optionalField("title", flag.webuiTitle), ...optionalField("placeholder", flag.webuiPlaceholder) },
      ...optionalField("apiKey", flag.apiKey),
      ...optionalField("preset", flag.preset),
      ...optionalField("system", Option.orElse(flag.system, () => Option.map(flag.systemFile, ([, text]) => text))),
      ...optionalField("cors", flag.cors),
      ...optionalField("limits", Option.map(flag.maxBody, (maxBytes) => ({ maxBytes }))),
      agentSessions: {
        ...optionalField("maxSessions", flag.maxSessions),
        ...optionalField("idleTimeout", Option.map(flag.sessionIdle, Duration.minutes)),
        ...optionalField("store", Option.map(flag.sessionsDir, directoryStore))
      }
    },
    listen: {
      host: Option.getOrElse(flag.host, () => defaultHost),
      port: Option.getOrElse(flag.port, () => defaultPort),
      timeoutSeconds: Option.getOrElse(flag.timeout, () => defaultTimeoutSeconds),
      graceSeconds: Option.getOrElse(flag.grace, () => defaultGraceSeconds),
      ...GuardFlags.listenGuards(flag)
    }
  })

/** The startup banner: where, what, how. */
const banner = (served: ServerApp.Service, address: HttpServer.Address): string => {
  const url = address._tag === "TcpAddress" ? `http://${address.hostname}:${address.port}` : address.path
  const { summary } = served
  const context = summary.contextSize === undefined ? "" : `, ctx ${summary.contextSize}`
  return [
    `easyai serve · ${url}`,
    `  model    ${summary.modelId} (${summary.backend}${context})`,
    `  parallel ${summary.parallel} · tools ${summary.tools.length} · auth ${summary.auth ? "on" : "off"} · cors ${describeCorsPolicy(summary.cors)}`,
    `  chat     ${url}/ in a browser · API ${url}/v1`
  ].join("\n")
}

/**
 * The flags after the settings file: flags > the matching `[MODEL_<pattern>]`
 * > `[ENGINE]` / `[SERVER]` > the environment > defaults.
 */
const settled = (flag: Flags) =>
  Effect.gen(function*() {
    const config = yield* SettingsFile.readSettings(flag.config)
    const engine = (yield* SettingsFile.modelSettings(config, flag.model)).settings
    const server = config.server
    // A blank key is no key, wherever it comes from.
    const flagKey = nonBlank(flag.apiKey)
    const apiKey = Option.isSome(flagKey) ? flagKey : server.apiKey !== undefined ? Option.some(server.apiKey) : yield* envSecret("EASYAI_API_KEY")
    const systemFile = Option.isSome(flag.system) || Option.isSome(flag.systemFile) || server.systemFile === undefined
      ? flag.systemFile
      : Option.some([server.systemFile, yield* readSystemFile(server.systemFile)] as const)
    const settledFlags: Flags = {
      ...GuardFlags.withServerSettings(flag, server),
      host: fill(flag.host, server.host),
      port: fill(flag.port, server.port),
      parallel: fill(flag.parallel, server.parallel),
      queue: fill(flag.queue, server.queue),
      timeout: fill(flag.timeout, server.httpTimeout),
      grace: fill(flag.grace, server.grace),
      apiKey,
      alias: fill(flag.alias, server.alias),
      systemFile,
      maxBody: fill(flag.maxBody, server.maxBody),
      webAllow: fill(flag.webAllow, server.webAllow?.join(",")),
      noInject: flag.noInject || server.inject === false,
      webuiTitle: fill(flag.webuiTitle, server.webuiTitle),
      webuiPlaceholder: fill(flag.webuiPlaceholder, server.webuiPlaceholder),
      ...ToolFlags.withToolSettings(flag, server),
      ctx: fill(flag.ctx, engine.context),
      threads: fill(flag.threads, engine.threads),
      preset: fill(flag.preset, engine.preset)
    }
    return settledFlags
  })

const readSystemFile = (file: string) =>
  Effect.tryPromise({
    try: () => readFile(file, "utf8"),
    catch: (error) => new ConfigurationError({ message: `cannot read the system file ${file}: ${error instanceof Error ? error.message : String(error)}` })
  })

/** `--max-sessions` and `--session-idle` count something: zero or less is a mistake, not a setting. */
const checkSessionFlags = (flag: Flags) =>
  Effect.forEach([["--max-sessions", flag.maxSessions], ["--session-idle", flag.sessionIdle]] as const, ([name, value]) =>
    Option.isSome(value) && value.value < 1
      ? new ConfigurationError({ message: `${name} must be 1 or more (got ${value.value})` })
      : Effect.void, { discard: true })

/** `easyai serve`: serves until SIGINT/SIGTERM. */
export const serve = (given: Flags) =>
  Effect.gen(function*() {
    const flag = yield* settled(given)
    yield* ToolFlags.checkHostFlags(flag)
    yield* checkSessionFlags(flag)
    const mcpKey = yield* mcpApiKey
    yield* Effect.gen(function*() {
      yield* Console.log(banner(yield* ServerApp.ServerApp, (yield* HttpServer.HttpServer).address))
      return yield* Effect.never
    }).pipe(Effect.provide(serverLayer(flag, mcpKey)))
  }).pipe(reportFailure("easyai serve"))
