/**
 * How a local model is loaded and run.
 *
 * @module
 */
import type { Duration } from "effect"
import { Penalties } from "./Sampling.js"

/** How far a model download has come. `totalBytes` is 0 until the server has said. */
export interface DownloadProgress {
  readonly downloadedBytes: number
  readonly totalBytes: number
}

/** What happens when a prompt (or a generation) no longer fits the context window. */
export type OverflowStrategy =
  /** Fail the turn with a typed `ContextOverflow` error. The default: nothing is dropped silently. */
  | "fail"
  /** Drop the oldest turns (keeping the system prompt) to make room, and go on. */
  | "truncate"

/** RoPE scaling, for contexts beyond what the model was trained on. */
export interface RopeScaling {
  readonly type: "none" | "linear" | "yarn"
  /** Frequency scale; 0 means the model's own. */
  readonly freqScale?: number
  /** YaRN's original context size; 0 means the model's own. */
  readonly yarnOrigCtx?: number
}

/** The configuration of a local model. Only `modelPath` is required. */
export interface EngineConfig {
  /**
   * Path to the GGUF file, or a URI to download it from once
   * (`hf:<user>/<repo>/<file>.gguf`, `https://…`) into node-llama-cpp's models directory.
   */
  readonly modelPath: string
  /**
   * Context window in tokens. Default: the model's training context, or the
   * largest size below it that the free memory can hold (node-llama-cpp's
   * `"auto"`); the loaded size is `Engine.info.contextSize`.
   */
  readonly contextSize?: number
  /** Layers offloaded to a GPU: `"auto"` (default) fits what memory allows; 0 runs on the CPU only. */
  readonly gpuLayers?: "auto" | number
  /** CPU threads. Default: the machine's available parallelism; never more than its cores. */
  readonly threads?: number
  /** Prompt tokens evaluated per batch. Default 512 (or the context size if smaller). */
  readonly batchSize?: number
  /**
   * Flash attention. Default false: on CPU it made prompt evaluation of small
   * models several times slower in our measurements; turn it on for GPUs.
   */
  readonly flashAttention?: boolean | "auto"
  /** KV-cache element types, e.g. `"q8_0"` to cut KV memory about 3×. Default f16. */
  readonly kvCacheType?: { readonly key?: string; readonly value?: string }
  /** Pin the model in RAM so it cannot be paged out. */
  readonly useMlock?: boolean
  /** Map the model file instead of reading it. Default: where supported. */
  readonly useMmap?: boolean
  /** RoPE scaling. Only `none` is supported by the underlying runtime today. */
  readonly ropeScaling?: RopeScaling
  /** Multi-GPU split. Only `layer` (the runtime's default) is supported today. */
  readonly splitMode?: "none" | "layer" | "row" | "tensor"
  /** Sampling seed for reproducible runs; random when absent. */
  readonly seed?: number
  /** Parallel sequences: concurrent requests served at once from one context. Default 1. */
  readonly sequences?: number
  /** A Jinja chat template overriding the one in the GGUF (or the family's built-in wrapper). */
  readonly chatTemplate?: string
  /** Load-time penalties; not changeable per request. Default {@link Penalties.default}. */
  readonly penalties?: Penalties
  /** What happens when the context overflows. Default `fail`. */
  readonly overflow?: OverflowStrategy
  /**
   * How long a download (`modelPath` a URI not downloaded yet) may take to
   * start — to connect and hear the server's first answer — before it fails.
   * Default {@link defaultDownloadStartTimeout}.
   */
  readonly downloadStartTimeout?: Duration.DurationInput
  /** Called as a download arrives, to show it; nothing is shown (or logged) without it. */
  readonly onDownloadProgress?: (progress: DownloadProgress) => void
}

/** How long a model download may take to start: offline, it fails after this instead of waiting forever. */
export const defaultDownloadStartTimeout: Duration.DurationInput = "10 seconds"

/** The thread count to use when `available` cores may be used: as configured, but never more than those. */
export const threadsWithin = (config: EngineConfig, available: number): number =>
  Math.max(1, Math.min(config.threads ?? available, available))

/**
 * The settings the runtime cannot honour, as messages; empty when the
 * configuration can be loaded as asked.
 */
export const unsupportedSettings = (config: EngineConfig): ReadonlyArray<string> => {
  const problems: Array<string> = []
  const rope = config.ropeScaling
  if (rope !== undefined && (rope.type !== "none" || (rope.freqScale ?? 0) !== 0 || (rope.yarnOrigCtx ?? 0) !== 0)) {
    problems.push("RoPE scaling other than \"none\" is not exposed by node-llama-cpp 3.22")
  }
  if (config.splitMode !== undefined && config.splitMode !== "layer") {
    problems.push(`split mode "${config.splitMode}" is not exposed by node-llama-cpp 3.22 (it always splits by layer)`)
  }
  if (config.sequences !== undefined && (!Number.isInteger(config.sequences) || config.sequences < 1)) {
    problems.push(`sequences must be a whole number of at least 1, got ${config.sequences}`)
  }
  return problems
}
