/**
 * The local engine: a GGUF model in-process on node-llama-cpp.
 *
 * ```ts
 * const engine = EngineLive.layer({ modelPath: "model.gguf", threads: 1 })
 * ```
 *
 * @module
 */
import * as path from "node:path"
import { Effect, Layer, Stream } from "effect"
import {
  type ChatModelFunctions,
  type GbnfJsonSchema,
  JinjaTemplateChatWrapper,
  LlamaChat
} from "node-llama-cpp"
import type { EngineConfig } from "../../domain/EngineConfig.js"
import { ContextOverflow, ModelError, ModelLoadError } from "../../domain/errors.js"
import { defaultPreset, Penalties, presets } from "../../domain/Sampling.js"
import type { ToolSpec } from "../../domain/ToolCall.js"
import type { ChatRequest } from "../../services/ChatModel.js"
import { Engine, type Service } from "../../services/Engine.js"
import { generate, type Mode } from "./generate.js"
import { toGbnfSchema } from "./gbnfSchema.js"
import { toChatHistory, toFunctions } from "./history.js"
import { load } from "./load.js"
import * as SequencePool from "./sequencePool.js"

/** The grammar schema of "one call to one of these tools". */
const callSchema = (tools: ReadonlyArray<ToolSpec>): GbnfJsonSchema => {
  const one = (tool: ToolSpec): GbnfJsonSchema => ({
    type: "object",
    properties: { name: { const: tool.name }, arguments: toGbnfSchema(tool.parameters) }
  })
  return tools.length === 1 && tools[0] !== undefined ? one(tools[0]) : { oneOf: tools.map(one) }
}

/** The tools a forced call may pick from, or an error when the request names one it does not offer. */
const forcedTools = (request: ChatRequest): ReadonlyArray<ToolSpec> | ModelError => {
  const choice = request.toolChoice
  if (typeof choice !== "object") return request.tools
  const named = request.tools.filter((tool) => tool.name === choice.name)
  return named.length > 0
    ? named
    : new ModelError({ reason: "BadResponse", detail: `toolChoice names "${choice.name}", which is not among the request's tools` })
}

const make = (config: EngineConfig) =>
  Effect.gen(function*() {
    const { context, llama, model } = yield* load(config)
    const chatWrapper = config.chatTemplate === undefined
      ? "auto" as const
      : yield* Effect.try({
        try: () => new JinjaTemplateChatWrapper({ template: config.chatTemplate ?? "" }),
        catch: (error) =>
          new ModelLoadError({
            path: config.modelPath,
            reason: "Unsupported",
            detail: `the chat template cannot be used: ${error instanceof Error ? error.message : String(error)}`
          })
      })
    const slots = yield* Effect.forEach(
      Array.from({ length: config.sequences ?? 1 }),
      () =>
        Effect.acquireRelease(
          Effect.sync(() => {
            const sequence = context.getSequence()
            return { sequence, chat: new LlamaChat({ contextSequence: sequence, chatWrapper }) }
          }),
          ({ chat }) => Effect.sync(() => chat.dispose())
        )
    )
    const pool = yield* SequencePool.make(slots)
    const wrapper = slots[0]?.chat.chatWrapper
    const penalties = config.penalties ?? Penalties.default
    const contextSize = context.contextSize
    const overflow = config.overflow ?? "fail"

    const promptTokens = (history: ReturnType<typeof toChatHistory>, functions: ChatModelFunctions | undefined) =>
      wrapper === undefined
        ? []
        : wrapper.generateContextState({
          chatHistory: history,
          ...(functions === undefined ? {} : { availableFunctions: functions, documentFunctionParams: true })
        }).contextText.tokenize(model.tokenizer)

    const forcedGrammar = (tools: ReadonlyArray<ToolSpec>) =>
      Effect.tryPromise({
        try: () => llama.createGrammarForJsonSchema<GbnfJsonSchema>(callSchema(tools)),
        catch: (error) =>
          new ModelError({
            reason: "BadResponse",
            detail: `cannot build the tool-call grammar: ${error instanceof Error ? error.message : String(error)}`
          })
      })

    const stream = (request: ChatRequest) =>
      Stream.unwrapScoped(Effect.gen(function*() {
        const history = toChatHistory(request.messages)
        const forced = request.toolChoice === "required" || typeof request.toolChoice === "object"
        let mode: Mode
        if (forced && request.tools.length > 0) {
          const tools = forcedTools(request)
          if (tools instanceof ModelError) return yield* tools
          mode = { _tag: "Forced", grammar: yield* forcedGrammar(tools) }
        } else {
          const offered = request.toolChoice === "none" || request.tools.length === 0
            ? undefined
            : toFunctions(request.tools)
          mode = { _tag: "Free", functions: offered }
        }
        const tokens = promptTokens(history, mode._tag === "Free" ? mode.functions : undefined)
        if (overflow === "fail" && tokens.length + 1 >= contextSize) {
          return yield* new ContextOverflow({ promptTokens: tokens.length, contextSize })
        }
        const slot = yield* pool.acquire(tokens)
        // The last prompt token is always evaluated again: sampling needs its logits.
        const cachedTokens = Math.min(SequencePool.reusablePrefix(slot.sequence, tokens), Math.max(0, tokens.length - 1))
        return yield* generate({
          slot,
          history,
          mode,
          promptTokens: tokens.length,
          cachedTokens,
          contextSize,
          batchSize: context.batchSize,
          sampling: request.sampling ?? presets[defaultPreset],
          penalties,
          overflow,
          ...(request.maxTokens === undefined ? {} : { maxTokens: request.maxTokens }),
          ...(request.stop === undefined ? {} : { stop: request.stop }),
          ...(config.seed === undefined ? {} : { seed: config.seed })
        })
      })).pipe(Stream.withSpan("Engine.stream"))

    const service: Service = {
      info: {
        name: model.fileInfo.metadata.general.name ?? path.basename(config.modelPath),
        backend: "local",
        contextSize
      },
      stream,
      native: { llama, model, context }
    }
    return service
  })

/** Loads the model for the lifetime of the Layer; closing it releases everything. */
export const layer = (config: EngineConfig): Layer.Layer<Engine, ModelLoadError> => Layer.scoped(Engine, make(config))
