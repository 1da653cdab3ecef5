/**
 * The command line every benchmark takes: a model path, then `--name=value`
 * options, with the engine settings the anchors are measured with.
 */
import { type EngineConfig, Penalties } from "../src/index.js"
import { commandLine, wholeNumber } from "./commandLine.js"

/** The parsed command line. */
export interface BenchArgs {
  readonly modelPath: string
  /** The value of `--name=…`, or `fallback`. */
  readonly option: (name: string, fallback: string) => string
  readonly threads: number
  readonly rounds: number
  /** `--fa=off|on|auto`, as node-llama-cpp's `flashAttention` setting. Default off, as the anchors. */
  readonly flashAttention: boolean | "auto"
}

/** Parses `process.argv`; prints `usage` and exits with code 2 when the model path is missing. */
export const benchArgs = (usage: string, defaultRounds: number): BenchArgs => {
  const { option, positional } = commandLine()
  const modelPath = positional[0]
  if (modelPath === undefined) {
    console.error(`usage: ${usage}`)
    process.exit(2)
  }
  const fa = option("fa", "off")
  return {
    modelPath,
    option,
    threads: wholeNumber("threads", option("threads", "1"), 1),
    rounds: wholeNumber("rounds", option("rounds", String(defaultRounds)), 1),
    flashAttention: fa === "on" ? true : fa === "auto" ? "auto" : false
  }
}

/**
 * The engine settings the anchors run with: CPU only, the penalties off
 * (raw node-llama-cpp applies none), the run's threads and flash attention.
 */
export const anchorEngineConfig = (
  args: BenchArgs,
  sizes: { readonly contextSize: number; readonly batchSize: number; readonly sequences: number }
): EngineConfig => ({
  modelPath: args.modelPath,
  threads: args.threads,
  gpuLayers: 0,
  flashAttention: args.flashAttention,
  penalties: new Penalties({ repeatPenalty: 1, frequencyPenalty: 0, presencePenalty: 0 }),
  ...sizes
})
