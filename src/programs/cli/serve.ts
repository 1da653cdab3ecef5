/**
 * `easyai serve`: the OpenAI-compatible HTTP server on a local GGUF model.
 *
 * @module
 */
import { HttpServer } from "@effect/platform"
import { Console, Duration, Effect, Layer, Option } from "effect"
import { basename, extname } from "node:path"
import { isModelUri } from "../../layers/engine/resolveModel.js"
import * as LocalChatModel from "../../layers/model/LocalChatModel.js"
import { describeCorsPolicy } from "../../apps/server/originPolicy.js"
import * as ServerApp from "../../apps/server/ServerApp.js"
import * as ServerLive from "../../apps/server/ServerLive.js"
import { directoryStore } from "../../apps/server/sessionStore.js"
import { reportFailure } from "./failure.js"
import { SettingsError } from "./settings/iniFile.js"
import { type ParsedFlags, settingsFor } from "./settings/options.js"
import { get, option, type Resolved } from "./settings/resolve.js"
import * as Stack from "./settings/stack.js"
import { optionalField } from "./settings/stack.js"

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
    return ServerLive.layer({
      ...stack,
      server: {
        modelFile: modelPath,
        modelAlias: Option.getOrElse(option(settings, "alias"), () => defaultAlias(modelPath)),
        parallel: get(settings, "parallel") ?? 1,
        ...optionalField("queueLimit", option(settings, "queue")),
        injectPreamble: get(settings, "inject") !== false,
        webui: { ...optionalField("title", option(settings, "webuiTitle")), ...optionalField("placeholder", option(settings, "webuiPlaceholder")) },
        ...optionalField("apiKey", option(settings, "apiKey")),
        ...optionalField("preset", option(settings, "preset")),
        ...optionalField("system", system),
        ...optionalField("cors", option(settings, "cors")),
        ...optionalField("limits", Option.map(option(settings, "maxBody"), (maxBytes) => ({ maxBytes }))),
        sampling: Stack.sampling(settings),
        ...optionalField("maxTokens", option(settings, "maxTokens")),
        agentSessions: {
          ...optionalField("maxSessions", option(settings, "maxSessions")),
          ...optionalField("idleTimeout", Option.map(option(settings, "sessionIdle"), Duration.minutes)),
          ...optionalField("store", Option.map(option(settings, "sessionsDir"), directoryStore))
        }
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
      // A missing required setting is a usage error, like a bad one.
      onNone: () => Effect.fail(new SettingsError({ source: "--model", detail: "required: a GGUF file or a hf:/https:// URI (or model in [SERVER])" })),
      onSome: Effect.succeed
    })
    yield* Effect.gen(function*() {
      yield* Console.log(banner(yield* ServerApp.ServerApp, (yield* HttpServer.HttpServer).address))
      return yield* Effect.never
    }).pipe(
      Effect.provide(serverLayer(settings, model)),
      Effect.provide(Stack.observabilityLayer(settings))
    )
  }).pipe(reportFailure("easyai serve"))
