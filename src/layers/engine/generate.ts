/**
 * One generation on one sequence, as a Stream of model events.
 *
 * Two modes: `free` lets the model write text (and call tools natively or in
 * raw markup the scanner recovers); `forced` constrains the output with a
 * grammar to one schema-valid tool call, so even a weak model calls a tool
 * when the request demands it.
 *
 * @module
 */
import { randomUUID } from "node:crypto"
import { Effect, Queue, Schedule, Stream, Take } from "effect"
import type {
  ChatHistoryItem,
  ChatModelFunctions,
  GbnfJsonSchema,
  LlamaChatResponse,
  LlamaChatResponseChunk,
  LlamaJsonSchemaGrammar,
  LLamaContextualRepeatPenalty
} from "node-llama-cpp"
import type { OverflowStrategy } from "../../domain/EngineConfig.js"
import { type ChatModelError, ContextOverflow, ModelError } from "../../domain/errors.js"
import {
  type FinishReason,
  Finished,
  type ModelEvent,
  PromptProgress,
  ToolCallRequested,
  Usage
} from "../../domain/ModelEvent.js"
import type { Penalties, SamplingParams } from "../../domain/Sampling.js"
import { ToolCall } from "../../domain/ToolCall.js"
import { DeltaBatcher } from "./deltaBatcher.js"
import { MarkupScanner, type Piece } from "./markup.js"
import type { Slot } from "./sequencePool.js"

/** How the model may answer. */
export type Mode =
  | { readonly _tag: "Free"; readonly functions: ChatModelFunctions | undefined }
  | { readonly _tag: "Forced"; readonly grammar: LlamaJsonSchemaGrammar<GbnfJsonSchema> }

/** Everything one generation needs. */
export interface Generation {
  readonly slot: Slot
  readonly history: Array<ChatHistoryItem>
  readonly mode: Mode
  readonly promptTokens: number
  readonly cachedTokens: number
  readonly contextSize: number
  /** Prompt tokens evaluated per batch. */
  readonly batchSize: number
  readonly sampling: SamplingParams
  readonly penalties: Penalties
  readonly overflow: OverflowStrategy
  readonly maxTokens?: number
  readonly stop?: ReadonlyArray<string>
  readonly seed?: number
}

/**
 * The generation budget. Under the `fail` strategy it never runs past the
 * context window — the turn ends with finish reason `length` — because
 * letting node-llama-cpp shift the context would drop history silently.
 */
const maxTokens = (generation: Generation): { readonly maxTokens?: number } => {
  if (generation.overflow === "truncate") {
    return generation.maxTokens === undefined ? {} : { maxTokens: generation.maxTokens }
  }
  const room = Math.max(1, generation.contextSize - generation.promptTokens - 1)
  return { maxTokens: Math.min(generation.maxTokens ?? room, room) }
}

const newCallId = (): string => `call_${randomUUID().replaceAll("-", "").slice(0, 16)}`

const repeatPenalty = (penalties: Penalties): LLamaContextualRepeatPenalty | false =>
  penalties.repeatPenalty === 1 && penalties.frequencyPenalty === 0 && penalties.presencePenalty === 0
    ? false
    : {
      penalty: penalties.repeatPenalty,
      frequencyPenalty: penalties.frequencyPenalty,
      presencePenalty: penalties.presencePenalty
    }

const finishReason = (stopReason: LlamaChatResponse["metadata"]["stopReason"], calledTools: boolean): FinishReason =>
  calledTools ? "tool_calls" : stopReason === "maxTokens" ? "length" : "stop"

const failure = (error: unknown, generation: Generation): ChatModelError => {
  const text = error instanceof Error ? error.message : String(error)
  // node-llama-cpp's own context shift gives up when even the system prompt does not fit.
  return text.includes("fits the context size")
    ? new ContextOverflow({ promptTokens: generation.promptTokens, contextSize: generation.contextSize })
    : new ModelError({ reason: "BadResponse", detail: `local generation failed: ${text}`, cause: error })
}

/** Parses the grammar-forced output into a tool call. */
const forcedCall = (grammar: LlamaJsonSchemaGrammar<GbnfJsonSchema>, text: string): ToolCall | ModelError => {
  try {
    const parsed: unknown = grammar.parse(text)
    if (typeof parsed === "object" && parsed !== null && "name" in parsed && typeof parsed.name === "string") {
      const args = "arguments" in parsed ? parsed.arguments : {}
      return new ToolCall({ id: newCallId(), name: parsed.name, arguments: JSON.stringify(args ?? {}) })
    }
    return new ModelError({ reason: "BadResponse", detail: `the forced tool call has no name: ${text}` })
  } catch (error) {
    return new ModelError({
      reason: "BadResponse",
      detail: `the forced tool call is incomplete (raise maxTokens?): ${error instanceof Error ? error.message : ""}`
    })
  }
}

/** Runs one generation; interrupting the stream aborts it within one token and waits for it to stop. */
export const generate = (generation: Generation): Stream.Stream<ModelEvent, ChatModelError> => {
  const { sequence } = generation.slot
  const meterAtStart = sequence.tokenMeter.getState()
  // Written by node-llama-cpp's callbacks, read by the progress sampler.
  const progress: { firstTokenAt: number | undefined } = { firstTokenAt: undefined }

  // node-llama-cpp calls back synchronously once per token: offering to a queue without forking keeps
  // that path as cheap as the raw callback.
  const tokens = Stream.unwrapScoped(Effect.gen(function*() {
    const queue = yield* Queue.unbounded<Take.Take<ModelEvent, ChatModelError>>()
    const batcher = new DeltaBatcher((event) => Queue.unsafeOffer(queue, Take.of(event)))
    const emit = (event: ModelEvent) => batcher.event(event)
    emit(new PromptProgress({ processed: generation.cachedTokens, total: generation.promptTokens }))
    const fail = (error: ChatModelError) => Queue.unsafeOffer(queue, Take.fail(error))
    const controller = new AbortController()
    const scanner = new MarkupScanner()
    const recovered: Array<ToolCall> = []
    const startedAt = performance.now()
    const emitPieces = (pieces: ReadonlyArray<Piece>) => {
      for (const piece of pieces) {
        if (piece._tag === "Call") recovered.push(new ToolCall({ id: newCallId(), name: piece.name, arguments: piece.arguments }))
        else batcher.delta(piece._tag, piece.text)
      }
    }
    const onResponseChunk = (chunk: LlamaChatResponseChunk) => {
      if (progress.firstTokenAt === undefined) {
        progress.firstTokenAt = performance.now()
        emit(new PromptProgress({ processed: generation.promptTokens, total: generation.promptTokens }))
      }
      if (generation.mode._tag === "Forced") return // the call is read whole at the end
      if (chunk.type === "segment") {
        if (chunk.segmentType === "thought") batcher.delta("Reasoning", chunk.text)
      } else emitPieces(scanner.feed(chunk.text))
    }
    const { sampling } = generation
    const common = {
      signal: controller.signal,
      stopOnAbortSignal: false,
      onResponseChunk,
      temperature: sampling.temperature,
      topK: sampling.topK,
      topP: sampling.topP,
      minP: sampling.minP,
      repeatPenalty: repeatPenalty(generation.penalties),
      ...maxTokens(generation),
      ...(generation.seed === undefined ? {} : { seed: generation.seed }),
      ...(generation.stop === undefined || generation.stop.length === 0 ? {} : { customStopTriggers: generation.stop })
    }
    const { chat } = generation.slot
    const running = generation.mode._tag === "Forced"
      ? chat.generateResponse(generation.history, { ...common, grammar: generation.mode.grammar })
      : chat.generateResponse(generation.history, {
        ...common,
        ...(generation.mode.functions === undefined
          ? {}
          : { functions: generation.mode.functions, documentFunctionParams: true })
      })

    running.then((result) => {
      const mode = generation.mode
      let calls: ReadonlyArray<ToolCall>
      if (mode._tag === "Forced") {
        const call = forcedCall(mode.grammar, result.response)
        if (call instanceof ModelError) return fail(call)
        calls = [call]
      } else {
        emitPieces(scanner.end())
        const native = (result.functionCalls ?? []).map((call) =>
          new ToolCall({ id: newCallId(), name: call.functionName, arguments: JSON.stringify(call.params ?? {}) })
        )
        calls = [...native, ...recovered]
      }
      for (const call of calls) emit(new ToolCallRequested({ call }))
      const used = sequence.tokenMeter.diff(meterAtStart)
      const generatingMillis = performance.now() - (progress.firstTokenAt ?? startedAt)
      emit(
        new Usage({
          promptTokens: generation.promptTokens,
          cachedTokens: generation.cachedTokens,
          completionTokens: used.usedOutputTokens,
          contextUsed: sequence.nextTokenIndex,
          contextSize: generation.contextSize,
          ...(generatingMillis > 0 ? { tokensPerSecond: used.usedOutputTokens / (generatingMillis / 1000) } : {})
        })
      )
      emit(new Finished({ reason: finishReason(result.metadata.stopReason, calls.length > 0) }))
      Queue.unsafeOffer(queue, Take.end)
    }, (error: unknown) => fail(failure(error, generation)))

    // Interruption: abort, then wait until node-llama-cpp has stopped, so the sequence is free and consistent.
    // Prompt evaluation reports no progress of its own: sample the sequence's token meter until the first token.
    let reported = generation.cachedTokens
    const sample = Effect.sync(() => {
      const processed = generation.cachedTokens + sequence.tokenMeter.diff(meterAtStart).usedInputTokens
      if (progress.firstTokenAt !== undefined || processed <= reported || processed >= generation.promptTokens) return
      reported = processed
      emit(new PromptProgress({ processed, total: generation.promptTokens }))
    })
    // The meter moves once per batch: a prompt that fits one batch has no progress to sample.
    if (generation.promptTokens - generation.cachedTokens > generation.batchSize) {
      yield* sample.pipe(
        Effect.repeat(Schedule.spaced("100 millis").pipe(Schedule.whileOutput(() => progress.firstTokenAt === undefined))),
        Effect.forkScoped
      )
    }
    let settled = false
    const stopped = running.then(() => (settled = true), () => (settled = true))
    yield* Effect.addFinalizer(() =>
      settled ? Effect.void : Effect.promise(() => {
        controller.abort()
        return stopped
      })
    )
    return Stream.fromQueue(queue).pipe(Stream.flattenTake)
  }))

  return tokens
}
