/**
 * `easyai serve`: the OpenAI-compatible HTTP server on a local GGUF model.
 *
 * @module
 */
import type { Command } from "@effect/cli"
import type { serveFlags } from "./serveFlags.js"
import { HttpServer } from "@effect/platform"
import { Console, Effect, Option, type Redacted } from "effect"
import { basename, extname } from "node:path"
import { isModelUri } from "../../layers/engine/resolveModel.js"
import * as LocalChatModel from "../../layers/model/LocalChatModel.js"
import * as ServerApp from "../server/ServerApp.js"
import { reportFailure } from "./failure.js"
import { optionalField } from "./optionalField.js"
import * as ToolFlags from "./toolFlags.js"
import { mcpApiKey, parseMcpServer } from "./mcpServers.js"
import * as ServerLive from "../server/ServerLive.js"

const corsPolicy = (text: string) => {
  const trimmed = text.trim()
  return trimmed === "*" || trimmed === "localhost" ? trimmed : trimmed.split(",").map((origin) => origin.trim()).filter((origin) => origin !== "")
}

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
/** `easyai serve`: serves until SIGINT/SIGTERM. */
export const serve = (flag: Flags) =>
  Effect.gen(function*() {
    yield* ToolFlags.checkHostFlags(flag)
    const mcpKey = yield* mcpApiKey
    yield* Effect.gen(function*() {
      yield* Console.log(banner(yield* ServerApp.ServerApp, (yield* HttpServer.HttpServer).address))
      return yield* Effect.never
    }).pipe(Effect.provide(serverLayer(flag, mcpKey)))
  }).pipe(reportFailure("easyai serve"))
