/**
 * Settings into the library's configurations: the one place where a
 * setting meets the code that uses it. Chat, serve, mcp and tools all build
 * their agent stack with {@link stackOptions}, so a feature reachable from
 * one program is reachable from every program that takes its setting.
 *
 * @module
 */
import { NodeHttpClient } from "@effect/platform-node"
import { Duration, Effect, Layer, Option } from "effect"
import { readFile } from "node:fs/promises"
import type { ClientConfig } from "../../../domain/ClientConfig.js"
import type { EngineConfig } from "../../../domain/EngineConfig.js"
import { ConfigurationError } from "../../../domain/errors.js"
import type { ChatMessage } from "../../../domain/Message.js"
import { Penalties, type SamplingOverrides } from "../../../domain/Sampling.js"
import * as ApprovalLive from "../../../layers/approval/ApprovalLive.js"
import type { ApprovalRequest } from "../../../layers/approval/ApprovalLive.js"
import type * as SessionStack from "../../../layers/session/SessionStack.js"
import type { Approval } from "../../../services/Approval.js"
import type { ChatModel } from "../../../services/ChatModel.js"
import * as Tracing from "../../../layers/tracing/Tracing.js"
import type { ListenOptions } from "../../../apps/server/ServerOptions.js"
import { version } from "../../../version.js"
import { progressOption } from "../downloadProgress.js"
import { logging } from "../logging.js"
import { parseMcpServer } from "../mcpServers.js"
import { stderrSink } from "../traceLines.js"
import { get, option, type Id, type Resolved, type ValueOf } from "./resolve.js"
import { errorText } from "../../../domain/errorText.js"

/** `{ [key]: value }` when `value` is some, else `{}`: an optional property under `exactOptionalPropertyTypes`. */
export const optionalField = <K extends string, A>(key: K, value: Option.Option<A>): { readonly [P in K]?: A } =>
  // boundary: a computed key widens to `string`; it is exactly `K` here
  Option.match(value, { onNone: () => ({}), onSome: (a) => ({ [key]: a }) as { readonly [P in K]?: A } })

/** `{ [key]: value }` when `id` has a value, else `{}`. */
const field = <K extends string, I extends Id>(key: K, resolved: Resolved, id: I) => optionalField(key, option(resolved, id))

/** The value of `id` when a flag, the file or the environment set it: not a default. */
export const given = <I extends Id>(resolved: Resolved, id: I): Option.Option<ValueOf<I>> =>
  resolved.values.get(id)?.origin._tag === "Default" ? Option.none() : option(resolved, id)

/** `{ [key]: value }` when `id` was set (not defaulted), else `{}`. */
const givenField = <K extends string, I extends Id>(key: K, resolved: Resolved, id: I) => optionalField(key, given(resolved, id))

/** The shapers the settings set over the preset's. */
export const sampling = (resolved: Resolved): SamplingOverrides => ({
  ...field("temperature", resolved, "temperature"),
  ...field("topP", resolved, "topP"),
  ...field("topK", resolved, "topK"),
  ...field("minP", resolved, "minP")
})

const penalties = (resolved: Resolved): Penalties =>
  new Penalties({
    repeatPenalty: get(resolved, "repeatPenalty") ?? Penalties.default.repeatPenalty,
    frequencyPenalty: get(resolved, "frequencyPenalty") ?? Penalties.default.frequencyPenalty,
    presencePenalty: get(resolved, "presencePenalty") ?? Penalties.default.presencePenalty
  })

/** A local model's configuration; the settings the runtime cannot honour are passed on, and it refuses them in one line. */
export const engineConfig = (resolved: Resolved, modelPath: string): EngineConfig => {
  const rope = Option.isSome(given(resolved, "ropeScaling")) || Option.isSome(given(resolved, "ropeFreqScale")) ||
    Option.isSome(given(resolved, "yarnOrigCtx"))
  return {
    modelPath,
    ...progressOption(),
    ...field("contextSize", resolved, "context"),
    ...field("threads", resolved, "threads"),
    ...field("gpuLayers", resolved, "gpuLayers"),
    ...field("batchSize", resolved, "batchSize"),
    ...field("flashAttention", resolved, "flashAttn"),
    ...field("useMlock", resolved, "mlock"),
    ...field("useMmap", resolved, "mmap"),
    ...field("seed", resolved, "seed"),
    ...givenField("splitMode", resolved, "splitMode"),
    ...(Option.isSome(given(resolved, "cacheTypeK")) || Option.isSome(given(resolved, "cacheTypeV"))
      ? { kvCacheType: { ...field("key", resolved, "cacheTypeK"), ...field("value", resolved, "cacheTypeV") } }
      : {}),
    ...(rope
      ? {
        ropeScaling: {
          type: get(resolved, "ropeScaling") ?? "none",
          ...field("freqScale", resolved, "ropeFreqScale"),
          ...field("yarnOrigCtx", resolved, "yarnOrigCtx")
        }
      }
      : {}),
    sequences: get(resolved, "parallel") ?? 1,
    penalties: penalties(resolved)
  }
}

/** The remote client's configuration, for the server at `url`. */
export const clientConfig = (resolved: Resolved, baseUrl: string): ClientConfig => {
  const tls = { ...field("caFile", resolved, "caCert"), ...(get(resolved, "insecureTls") === true ? { insecure: true } : {}) }
  const setPenalties = (["repeatPenalty", "frequencyPenalty", "presencePenalty"] as const).some((id) => Option.isSome(given(resolved, id)))
  return {
    baseUrl,
    ...field("apiKey", resolved, "apiKey"),
    ...field("model", resolved, "modelName"),
    ...optionalField("timeout", Option.map(option(resolved, "timeout"), Duration.seconds)),
    ...field("retries", resolved, "httpRetries"),
    ...(Object.keys(tls).length === 0 ? {} : { tls }),
    ...field("extraBody", resolved, "extraBody"),
    ...field("stop", resolved, "stop"),
    ...field("seed", resolved, "seed"),
    ...(get(resolved, "promptProgress") === false ? { promptProgress: false } : {}),
    ...(setPenalties ? { penalties: penalties(resolved) } : {})
  }
}

/** The server `url` names, or a line saying how to name one. */
export const serverUrl = (resolved: Resolved): Effect.Effect<string, ConfigurationError> =>
  Option.match(option(resolved, "url"), {
    onNone: () => Effect.fail(new ConfigurationError({ message: "no server: pass --url URL, set url in [cli], or set EASYAI_URL" })),
    onSome: Effect.succeed
  })

/** The listener of `easyai serve` and `easyai mcp`. */
export const listenOptions = (resolved: Resolved): ListenOptions => ({
  ...field("host", resolved, "host"),
  ...field("port", resolved, "port"),
  ...field("timeoutSeconds", resolved, "httpTimeout"),
  ...field("graceSeconds", resolved, "grace"),
  ...field("allowedHosts", resolved, "allowedHosts"),
  ...field("bodyTimeoutSeconds", resolved, "bodyTimeout"),
  ...field("maxClientConnections", resolved, "maxClientConnections")
})

/** Refuses combinations that cannot work, before anything loads. */
export const checkCombinations = (resolved: Resolved): Effect.Effect<void, ConfigurationError> =>
  get(resolved, "allowBash") === true && get(resolved, "sandbox") === undefined
    ? Effect.fail(new ConfigurationError({ message: "--allow-bash needs --sandbox DIR: the shell runs inside the sandbox" }))
    : Effect.void

/** The system prompt the settings ask for: `--system`, else the text of `--system-file`. */
export const systemPrompt = (resolved: Resolved): Effect.Effect<Option.Option<string>, ConfigurationError> =>
  Option.match(option(resolved, "system"), {
    onSome: (text) => Effect.succeed(Option.some(text)),
    onNone: () =>
      Option.match(option(resolved, "systemFile"), {
        onNone: () => Effect.succeed(Option.none()),
        onSome: (file) =>
          Effect.tryPromise({
            try: () => readFile(file, "utf8").then(Option.some),
            catch: (error) => new ConfigurationError({ message: `cannot read the system file ${file}: ${errorText(error)}` })
          })
      })
  })

/** The stack's `host` option: none unless a sandbox or external tools are asked for. */
const hostOption = (resolved: Resolved): Pick<SessionStack.Options<never>, "host"> => {
  const sandbox = option(resolved, "sandbox")
  const external = option(resolved, "externalTools")
  if (Option.isNone(sandbox) && Option.isNone(external)) return {}
  return {
    host: {
      root: Option.getOrElse(sandbox, () => "."),
      fs: Option.isSome(sandbox),
      bash: get(resolved, "allowBash") === true,
      evaluate: Option.isSome(sandbox) && get(resolved, "allowPython") !== false,
      toolEnv: get(resolved, "toolEnv") ?? [],
      ...field("isolate", resolved, "isolate"),
      ...optionalField("externalTools", external)
    }
  }
}

/** Who approves a tool call: everything under `--yes`; else the patterns, local tools, and `ask` (the person present) for the rest. */
export const approval = (
  resolved: Resolved,
  ask?: (request: ApprovalRequest) => Effect.Effect<boolean>,
  /** Whether tools the command line chose itself run unasked; not so for a server's agent driven from here. */
  trustLocal = true
): Layer.Layer<Approval> => {
  if (get(resolved, "yes") === true) return ApprovalLive.autoApprove
  const patterns = option(resolved, "autoApprove")
  // Nobody is at a server to ask: without patterns every call runs, as the server's own tools always have.
  if (ask === undefined && resolved.program === "serve" && Option.isNone(patterns)) return ApprovalLive.autoApprove
  return ApprovalLive.policy({
    autoApproveLocal: trustLocal,
    // In the hybrid shell the model's commands run in the user's own directory: each is confirmed, unless auto-approved.
    ...(get(resolved, "shell") === true ? { confirmLocal: ["bash"] } : {}),
    autoApprove: Option.getOrElse(patterns, () => []),
    ...(ask === undefined ? {} : { ask })
  })
}

/** What only the program knows: its model, who approves, the conversation to continue. */
export interface StackInputs<E> {
  readonly model: Layer.Layer<ChatModel, E>
  readonly approval?: Layer.Layer<Approval>
  readonly history?: ReadonlyArray<ChatMessage>
  /** Registers the `system_*` tools, which read this machine: for a program whose user owns it. */
  readonly system?: boolean
  /** Texts the program appends to the system prompt. */
  readonly systemAppend?: ReadonlyArray<string>
}

/**
 * The agent stack the settings describe, for every program: tools (host,
 * web, memory, skills, workspace, MCP), the system prompt and preamble,
 * sampling, the hop budget.
 */
export const stackOptions = <E>(resolved: Resolved, inputs: StackInputs<E>) =>
  Effect.gen(function*() {
    yield* checkCombinations(resolved)
    const system = yield* systemPrompt(resolved)
    const mcpKey = option(resolved, "mcpApiKey")
    const servers = get(resolved, "mcp") ?? []
    const skills = get(resolved, "skills") ?? []
    const allowNetworks = get(resolved, "webAllow") ?? []
    const options: SessionStack.Options<E> = {
      model: inputs.model,
      ...(inputs.approval === undefined ? {} : { approval: inputs.approval }),
      ...(inputs.system === true ? { system: true } : {}),
      toolMode: get(resolved, "toolsMode") ?? "split",
      ...hostOption(resolved),
      ...(allowNetworks.length === 0 ? {} : { web: { allowNetworks } }),
      ...field("memory", resolved, "memory"),
      ...field("workspace", resolved, "workspace"),
      ...(get(resolved, "plan") === false ? { plan: false } : {}),
      ...(skills.length === 0
        ? {}
        : {
          skills: {
            directories: skills,
            ...field("mode", resolved, "skillsMode"),
            ...optionalField("options", Option.map(option(resolved, "skillCommands"), (allowedCommands) => ({ allowedCommands })))
          }
        }),
      ...(servers.length === 0
        ? {}
        : { mcp: { servers: servers.map((text) => parseMcpServer(text, mcpKey)), ...field("retries", resolved, "httpRetries") } }),
      preamble: { ...field("knowledgeCutoff", resolved, "knowledgeCutoff"), ...field("citeSources", resolved, "citeSources") },
      ...optionalField("agent", Option.map(option(resolved, "maxToolHops"), (maxToolHops) => ({ maxToolHops }))),
      session: {
        ...(inputs.history === undefined ? {} : { history: inputs.history }),
        ...(get(resolved, "defaultTools") === false ? { withDefaultTools: false } : {}),
        ...(get(resolved, "builtinSystem") === false ? { noBuiltinSystem: true } : {}),
        ...optionalField("system", system),
        ...(inputs.systemAppend === undefined ? {} : { systemAppend: inputs.systemAppend }),
        ...field("preset", resolved, "preset"),
        sampling: sampling(resolved)
      }
    }
    return options
  })

/** Where the command's log lines go: `--verbose` and `--log-file`. */
export const loggingLayer = (resolved: Resolved) => logging({ verbose: get(resolved, "verbose") === true, ...field("logFile", resolved, "logFile") })

/**
 * Where spans go: `--trace-file`, `--otlp`, and the verbose lines on stderr
 * under `--verbose`. With none of them, the default tracer stays.
 */
export const tracingLayer = (resolved: Resolved) =>
  Tracing.layer({
    ...field("traceFile", resolved, "traceFile"),
    ...field("otlp", resolved, "otlp"),
    ...(get(resolved, "verbose") === true ? { sinks: [stderrSink] } : {}),
    serviceVersion: version
  }).pipe(Layer.provide(NodeHttpClient.layer))

/** The command's logs and spans: {@link loggingLayer} and {@link tracingLayer}. */
export const observabilityLayer = (resolved: Resolved) => Layer.merge(loggingLayer(resolved), tracingLayer(resolved))
