/**
 * `easyai serve`: the OpenAI-compatible HTTP server on a local GGUF model.
 *
 * @module
 */
import { HttpServer } from "@effect/platform"
import { Console, Effect, Layer, Option } from "effect"
import { basename, extname } from "node:path"
import { ConfigurationError } from "../../domain/errors.js"
import { isModelUri } from "../../layers/engine/resolveModel.js"
import * as LocalChatModel from "../../layers/model/LocalChatModel.js"
import { describeCorsPolicy } from "../server/originPolicy.js"
import * as ServerApp from "../server/ServerApp.js"
import * as ServerLive from "../server/ServerLive.js"
import { reportFailure } from "./failure.js"
import { logging } from "./logging.js"
import { type ParsedFlags, settingsFor } from "./settings/options.js"
import { get, option, type Resolved } from "./settings/resolve.js"
import * as Stack from "./settings/stack.js"

/** The name served at /v1/models when no --alias is given: the model file's name without `.gguf`. */
const defaultAlias = (model: string): string => {
  const name = basename(model, extname(model))
  return isModelUri(model) ? name.replaceAll(":", "-") : name
}

/** The whole server the settings describe. */
const serverLayer = (settings: Resolved, modelPath: string) =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const model = LocalChatModel.layerFrom(Stack.engineConfig(settings, modelPath))
    const stack = yield* Stack.stackOptions(settings, { model, approval: Stack.approval(settings) })
    const system = yield* Stack.systemPrompt(settings)
    const title = option(settings, "webuiTitle")
    const placeholder = option(settings, "webuiPlaceholder")
    const maxTokens = option(settings, "maxTokens")
    return ServerLive.layer({
      ...stack,
      server: {
        modelFile: modelPath,
        modelAlias: Option.getOrElse(option(settings, "alias"), () => defaultAlias(modelPath)),
        parallel: get(settings, "parallel") ?? 1,
        ...Option.match(option(settings, "queue"), { onNone: () => ({}), onSome: (queueLimit) => ({ queueLimit }) }),
        injectPreamble: get(settings, "inject") !== false,
        webui: {
          ...Option.match(title, { onNone: () => ({}), onSome: (text) => ({ title: text }) }),
          ...Option.match(placeholder, { onNone: () => ({}), onSome: (text) => ({ placeholder: text }) })
        },
        ...Option.match(option(settings, "apiKey"), { onNone: () => ({}), onSome: (apiKey) => ({ apiKey }) }),
        ...Option.match(option(settings, "preset"), { onNone: () => ({}), onSome: (preset) => ({ preset }) }),
        ...Option.match(system, { onNone: () => ({}), onSome: (text) => ({ system: text }) }),
        ...Option.match(option(settings, "cors"), { onNone: () => ({}), onSome: (cors) => ({ cors }) }),
        ...Option.match(option(settings, "maxBody"), { onNone: () => ({}), onSome: (maxBytes) => ({ limits: { maxBytes } }) }),
        sampling: Stack.sampling(settings),
        ...Option.match(maxTokens, { onNone: () => ({}), onSome: (n) => ({ maxTokens: n }) })
      },
      listen: Stack.listenOptions(settings)
    })
  }))

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

/** `easyai serve`: serves until SIGINT/SIGTERM. */
export const serve = (flags: ParsedFlags) =>
  Effect.gen(function*() {
    const settings = yield* settingsFor("serve", flags)
    const model = yield* Option.match(option(settings, "model"), {
      onNone: () => Effect.fail(new ConfigurationError({ message: "no model: pass --model FILE (or set model in [SERVER])" })),
      onSome: Effect.succeed
    })
    const logFile = get(settings, "logFile")
    yield* Effect.gen(function*() {
      yield* Console.log(banner(yield* ServerApp.ServerApp, (yield* HttpServer.HttpServer).address))
      return yield* Effect.never
    }).pipe(
      Effect.provide(serverLayer(settings, model)),
      Effect.provide(logging({ verbose: get(settings, "verbose") === true, ...(logFile === undefined ? {} : { logFile }) }))
    )
  }).pipe(reportFailure("easyai serve"))
