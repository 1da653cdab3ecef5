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
import { callSchema, forcedTools } from "./forcedCall.js"
import { generate, type Mode, tokenBudget } from "./generate.js"
import { renderPrompt, toChatHistory, toFunctions } from "./history.js"
import { load } from "./load.js"
import * as SequencePool from "./sequencePool.js"

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
      wrapper === undefined ? [] : renderPrompt(wrapper, history, functions).tokenize(model.tokenizer)

    /** The grammar of one call to one of `tools`, its strings bounded to fit `budget` tokens. */
    const forcedGrammar = (tools: ReadonlyArray<ToolSpec>, budget: number) =>
      Effect.tryPromise({
        try: () => llama.createGrammarForJsonSchema<GbnfJsonSchema>(callSchema(tools, budget)),
        // What the grammar builder refuses is the request's tool schema (nesting too deep, an object `const`).
        catch: (error) =>
          new ModelError({
            reason: "InvalidRequest",
            detail: `cannot build the tool-call grammar from the tools' schemas: ${error instanceof Error ? error.message : String(error)}`
          })
      })

    const stream = (request: ChatRequest) =>
      Stream.unwrapScoped(Effect.gen(function*() {
        const history = toChatHistory(request.messages)
        const forced = (request.toolChoice === "required" || typeof request.toolChoice === "object") && request.tools.length > 0
        const offered = forced || request.toolChoice === "none" || request.tools.length === 0
          ? undefined
          : toFunctions(request.tools)
        const tokens = promptTokens(history, offered)
        if (overflow === "fail" && tokens.length + 1 >= contextSize) {
          return yield* new ContextOverflow({ promptTokens: tokens.length, contextSize })
        }
        let mode: Mode = { _tag: "Free", functions: offered }
        if (forced) {
          const tools = forcedTools(request)
          if (tools instanceof ModelError) return yield* tools
          const budget = tokenBudget({
            overflow,
            contextSize,
            promptTokens: tokens.length,
            ...(request.maxTokens === undefined ? {} : { maxTokens: request.maxTokens })
          }) ?? contextSize
          mode = { _tag: "Forced", grammar: yield* forcedGrammar(tools, budget) }
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
