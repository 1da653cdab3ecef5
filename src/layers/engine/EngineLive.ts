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
import { Effect, Layer } from "effect"
import {
  type ChatModelFunctions,
  type GbnfJsonSchema,
  JinjaTemplateChatWrapper,
  LlamaChat,
  type LlamaGrammar
} from "node-llama-cpp"
import type { EngineConfig } from "../../domain/EngineConfig.js"
import { ContextOverflow, ModelError, ModelLoadError } from "../../domain/errors.js"
import { defaultPreset, Penalties, presets } from "../../domain/Sampling.js"
import type { ResponseFormat } from "../../domain/ResponseFormat.js"
import type { ToolSpec } from "../../domain/ToolCall.js"
import type { ChatRequest } from "../../services/ChatModel.js"
import { type CompletionRequest, Engine, type Service } from "../../services/Engine.js"
import { complete } from "./completion.js"
import { callSchema, forcedTools } from "./forcedCall.js"
import { generate, type Mode, tokenBudget } from "./generate.js"
import { toGbnfSchema } from "./gbnfSchema.js"
import { renderPrompt, toChatHistory, toFunctions } from "./history.js"
import { load } from "./load.js"
import * as SequencePool from "./sequencePool.js"
import { rememberingTokenizer } from "./tokenMemory.js"
import { errorText } from "../../domain/errorText.js"
import { scopedSpannedStream } from "../tracing/spannedStream.js"

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
            detail: `the chat template cannot be used: ${errorText(error)}`
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

    /** The prompt as the wrapper renders it (once per request: it is tokenized, and kept on the span). */
    const render = (history: ReturnType<typeof toChatHistory>, functions: ChatModelFunctions | undefined) =>
      wrapper === undefined ? undefined : renderPrompt(wrapper, history, functions)
    // A conversation's prompt comes back every turn with one turn more: what it already held is not tokenized again.
    const tokenizer = rememberingTokenizer(model.tokenizer)
    const promptTokens = (history: ReturnType<typeof toChatHistory>, functions: ChatModelFunctions | undefined) =>
      render(history, functions)?.tokenize(tokenizer) ?? []

    /** A grammar from what the request gave; what the builder refuses (nesting too deep, an object `const`) is the request's. */
    const grammarOf = <G>(what: string, field: "tools" | "responseFormat", build: () => Promise<G>) =>
      Effect.tryPromise({
        try: build,
        catch: (error) =>
          new ModelError({
            reason: "InvalidRequest",
            field,
            detail: `cannot build the ${what}: ${errorText(error)}`
          })
      })

    /** The grammar of one call to one of `tools`, its strings bounded to fit `budget` tokens. */
    const forcedGrammar = (tools: ReadonlyArray<ToolSpec>, budget: number) =>
      grammarOf("tool-call grammar from the tools' schemas", "tools", () => llama.createGrammarForJsonSchema<GbnfJsonSchema>(callSchema(tools, budget)))

    /** The grammar of an answer in `format`. */
    const answerGrammar = (format: ResponseFormat): Effect.Effect<LlamaGrammar, ModelError> =>
      format.type === "json_object"
        ? grammarOf("JSON grammar", "responseFormat", () => llama.getGrammarFor("json"))
        : grammarOf(
          `grammar of the response format "${format.name}"`,
          "responseFormat",
          () => llama.createGrammarForJsonSchema<GbnfJsonSchema>(toGbnfSchema(format.schema))
        )

    const stream = (request: ChatRequest) =>
      scopedSpannedStream("Engine.stream", {}, (span) => Effect.gen(function*() {
        const history = toChatHistory(request.messages)
        const forced = (request.toolChoice === "required" || typeof request.toolChoice === "object") && request.tools.length > 0
        // A shaped answer is the answer: under its grammar the model can call no tool, so none is offered.
        const shaped = forced ? undefined : request.responseFormat
        const offered = forced || shaped !== undefined || request.toolChoice === "none" || request.tools.length === 0
          ? undefined
          : toFunctions(request.tools)
        const prompt = render(history, offered)
        const tokens = prompt?.tokenize(tokenizer) ?? []
        const annotate = (attributes: Readonly<Record<string, unknown>>) => {
          for (const [key, value] of Object.entries(attributes)) span.attribute(key, value)
        }
        annotate({
          "gen_ai.usage.input_tokens": tokens.length,
          ...(prompt === undefined ? {} : { "easyai.prompt.rendered": prompt.toString() })
        })
        if (overflow === "fail" && tokens.length + 1 >= contextSize) {
          return yield* new ContextOverflow({ promptTokens: tokens.length, contextSize })
        }
        let mode: Mode = shaped === undefined
          ? { _tag: "Free", functions: offered }
          : { _tag: "Shaped", grammar: yield* answerGrammar(shaped) }
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
          ...(config.seed === undefined ? {} : { seed: config.seed }),
          annotate
        })
      }))

    const completeStream = (request: CompletionRequest) =>
      scopedSpannedStream("Engine.complete", {}, () => Effect.gen(function*() {
        const tokens = model.tokenize(request.prompt)
        if (overflow === "fail" && tokens.length + 1 >= contextSize) {
          return yield* new ContextOverflow({ promptTokens: tokens.length, contextSize })
        }
        const slot = yield* pool.acquire(tokens)
        const seed = request.seed ?? config.seed
        return yield* complete({
          slot,
          prompt: tokens,
          contextSize,
          sampling: request.sampling ?? presets[defaultPreset],
          penalties,
          overflow,
          ...(request.maxTokens === undefined ? {} : { maxTokens: request.maxTokens }),
          ...(request.stop === undefined ? {} : { stop: request.stop }),
          ...(seed === undefined ? {} : { seed })
        })
      }))

    const service: Service = {
      info: {
        name: model.fileInfo.metadata.general.name ?? path.basename(config.modelPath),
        backend: "local",
        contextSize
      },
      stream,
      complete: completeStream,
      countTokens: (request) =>
        promptTokens(
          toChatHistory(request.messages),
          request.tools.length === 0 || request.toolChoice === "none" ? undefined : toFunctions(request.tools)
        ).length,
      native: { llama, model, context }
    }
    return service
  })

/** Loads the model for the lifetime of the Layer; closing it releases everything. */
export const layer = (config: EngineConfig): Layer.Layer<Engine, ModelLoadError> => Layer.scoped(Engine, make(config))
