/**
 * Loading a model and its context, as scoped resources, with every way it
 * can fail translated once into a `ModelLoadError`.
 *
 * @module
 */
import { Effect, type Scope } from "effect"
import * as NodeLlamaCpp from "node-llama-cpp"
import { availableParallelism } from "node:os"
import {
  getLlama,
  GgmlType,
  readGgufFileInfo,
  type Llama,
  type LlamaContext,
  LlamaLogLevel,
  type LlamaModel
} from "node-llama-cpp"
import { type EngineConfig, threadsWithin, unsupportedSettings } from "../../domain/EngineConfig.js"
import { ModelLoadError } from "../../domain/errors.js"
import { resolveModelPath } from "./resolveModel.js"
import { errorCode, errorText } from "../../domain/errorText.js"

/** The thread count to use: as configured, but never more than the cores this process may use. */
const effectiveThreads = (config: EngineConfig): number => threadsWithin(config, availableParallelism())

/** What loading produced. */
export interface Loaded {
  readonly llama: Llama
  readonly model: LlamaModel
  readonly context: LlamaContext
}


/** Translates a load failure, using what llama.cpp logged when the thrown error says little. */
const loadError = (path: string, error: unknown, logged: ReadonlyArray<string>): ModelLoadError => {
  const text = errorText(error)
  const code = errorCode(error)
  const name = error instanceof Error ? error.constructor.name : ""
  const log = logged.join("\n")
  if (code === "ENOENT") return new ModelLoadError({ path, reason: "NotFound", detail: "no such file" })
  if (code === "EISDIR") return new ModelLoadError({ path, reason: "NotFound", detail: "this is a directory, not a GGUF file" })
  if (name === "InvalidGgufMagicError" || text.startsWith("Invalid GGUF magic")) {
    return new ModelLoadError({ path, reason: "NotGguf", detail: `not a GGUF file (${text})` })
  }
  const architecture = log.indexOf("unknown model architecture")
  if (architecture >= 0) {
    const line = log.slice(architecture).split("\n")[0] ?? "unknown model architecture"
    return new ModelLoadError({ path, reason: "UnsupportedArchitecture", detail: line.trim() })
  }
  if (name === "InsufficientMemoryError" || text.toLowerCase().includes("memory")) {
    return new ModelLoadError({ path, reason: "OutOfMemory", detail: text })
  }
  if (error instanceof TypeError) {
    return new ModelLoadError({ path, reason: "NotGguf", detail: `the GGUF file is damaged or truncated (${text})` })
  }
  return new ModelLoadError({ path, reason: "Failed", detail: log === "" ? text : `${text}: ${log}` })
}

// boundary: the typings declare this enum `const`, but it is a plain object at runtime
const architectureEnum = (NodeLlamaCpp as unknown as Record<string, Record<string, string> | undefined>)["GgufArchitectureType"]
const knownArchitectures: ReadonlySet<string> = new Set(Object.values(architectureEnum ?? {}))

/**
 * llama.cpp says only "Failed to load model" (the reason goes to its log, which
 * a shared llama.cpp instance may send elsewhere): look at the file's declared
 * architecture to tell an unsupported one apart.
 */
const explainFailure = (path: string, error: ModelLoadError): Effect.Effect<never, ModelLoadError> =>
  Effect.tryPromise(() => readGgufFileInfo(path, { readTensorInfo: false, logWarnings: false })).pipe(
    Effect.orElseSucceed(() => undefined),
    Effect.flatMap((info) => {
      const architecture = info?.metadata.general.architecture
      return Effect.fail(
        architecture !== undefined && knownArchitectures.size > 0 && !knownArchitectures.has(architecture)
          ? new ModelLoadError({ path, reason: "UnsupportedArchitecture", detail: `unknown model architecture: '${architecture}'` })
          : error
      )
    })
  )

/** Disposes a native resource; a failure while releasing is logged, never thrown into the closing scope. */
const release = (dispose: () => Promise<void>): Effect.Effect<void> =>
  Effect.tryPromise(dispose).pipe(Effect.catchAll((error) => Effect.logWarning("disposing a llama.cpp resource failed", error)))

/**
 * Acquires llama.cpp, the model and a context in the current scope; closing
 * the scope (or interrupting the load) disposes all three.
 */
export const load = (config: EngineConfig): Effect.Effect<Loaded, ModelLoadError, Scope.Scope> =>
  Effect.gen(function*() {
    const path = yield* resolveModelPath(config.modelPath, config)
    const kvCache = kvCacheTypes(config)
    const problems = [...unsupportedSettings(config), ...(kvCache.error === undefined ? [] : [kvCache.error])]
    if (problems.length > 0) {
      return yield* new ModelLoadError({ path, reason: "Unsupported", detail: problems.join("; ") })
    }
    if (config.threads !== undefined && config.threads > effectiveThreads(config)) {
      yield* Effect.logWarning(`threads ${config.threads} capped at ${effectiveThreads(config)}, the cores available`)
    }
    // llama.cpp reports why a load failed only in its log; keep the recent error lines.
    const logged: Array<string> = []
    const logger = (level: LlamaLogLevel, message: string) => {
      if (level === LlamaLogLevel.error || level === LlamaLogLevel.fatal) {
        logged.push(message.trim())
        if (logged.length > 20) logged.shift()
      }
    }
    const llama = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () =>
          getLlama({
            gpu: config.gpuLayers === 0 ? false : "auto",
            build: "never",
            logger,
            logLevel: LlamaLogLevel.warn,
            maxThreads: effectiveThreads(config)
          }),
        catch: (error) => new ModelLoadError({ path, reason: "Failed", detail: `llama.cpp is unavailable: ${errorText(error)}` })
      }),
      (llama) => release(() => llama.dispose())
    )
    const model = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: (signal) =>
          llama.loadModel({
            modelPath: path,
            gpuLayers: config.gpuLayers ?? "auto",
            ...(config.useMlock === undefined ? {} : { useMlock: config.useMlock }),
            ...(config.useMmap === undefined ? {} : { useMmap: config.useMmap }),
            loadSignal: signal
          }),
        catch: (error) => loadError(path, error, logged)
      }).pipe(Effect.catchIf((error) => error.reason === "Failed", (error) => explainFailure(path, error))),
      (model) => release(() => model.dispose())
    )
    const context = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: (signal) =>
          model.createContext({
            // "auto": the training context, shrunk to what free memory holds.
            contextSize: config.contextSize ?? "auto",
            sequences: config.sequences ?? 1,
            threads: effectiveThreads(config),
            flashAttention: config.flashAttention ?? false,
            ...(config.batchSize === undefined ? {} : { batchSize: config.batchSize }),
            ...kvCache.options,
            createSignal: signal
          }),
        catch: (error) => loadError(path, error, logged)
      }),
      (context) => release(() => context.dispose())
    )
    return { llama, model, context }
  })

const isGgmlTypeName = (name: string): name is keyof typeof GgmlType => name in GgmlType

/** The KV-cache types as node-llama-cpp spells them (`q8_0` → `Q8_0`), or what is wrong with them. */
const kvCacheTypes = (config: EngineConfig) => {
  const resolve = (name: string | undefined) => {
    if (name === undefined) return undefined
    const upper = name.toUpperCase()
    return isGgmlTypeName(upper) ? upper : null
  }
  const key = resolve(config.kvCacheType?.key)
  const value = resolve(config.kvCacheType?.value)
  return key === null || value === null
    ? { error: `unknown KV-cache type in ${JSON.stringify(config.kvCacheType)} (try f16, q8_0, q4_0)` }
    : {
      options: {
        ...(key === undefined ? {} : { experimentalKvCacheKeyType: key }),
        ...(value === undefined ? {} : { experimentalKvCacheValueType: value })
      }
    }
}
