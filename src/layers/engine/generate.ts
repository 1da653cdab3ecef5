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
import { Effect, Either, Schedule, type Scope, type Stream } from "effect"
import type {
  ChatHistoryItem,
  ChatModelFunctions,
  GbnfJsonSchema,
  LlamaChatResponse,
  LlamaChatResponseChunk,
  LlamaGrammar,
  LlamaJsonSchemaGrammar,
  LLamaContextualRepeatPenalty,
  TokenMeterState
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
import { newToolCallId, ToolCall } from "../../domain/ToolCall.js"
import { DeltaBatcher } from "./deltaBatcher.js"
import { EventOutlet } from "./eventOutlet.js"
import { readForcedCall } from "./forcedCall.js"
import { MarkupScanner, type Piece } from "./markup.js"
import type { Slot } from "./sequencePool.js"
import { errorText } from "../../domain/errorText.js"

/**
 * How the model may answer: freely (text and tool calls), forced to one
 * tool call, or shaped by a grammar into a JSON answer (no tool calls).
 */
export type Mode =
  | { readonly _tag: "Free"; readonly functions: ChatModelFunctions | undefined }
  | { readonly _tag: "Forced"; readonly grammar: LlamaJsonSchemaGrammar<GbnfJsonSchema> }
  | { readonly _tag: "Shaped"; readonly grammar: LlamaGrammar }

/** What every run of the model on a sequence needs: the sequence, the window, the shapers and the limits. */
export interface SequenceRun {
  readonly slot: Slot
  readonly contextSize: number
  readonly sampling: SamplingParams
  readonly penalties: Penalties
  readonly overflow: OverflowStrategy
  readonly maxTokens?: number
  readonly stop?: ReadonlyArray<string>
  readonly seed?: number
  /** Records what only the generation knows (parse path, raw output) on the `Engine.stream` span. */
  readonly annotate?: (attributes: Readonly<Record<string, unknown>>) => void
}

/** Everything one generation needs. */
export interface Generation extends SequenceRun {
  readonly history: Array<ChatHistoryItem>
  readonly mode: Mode
  readonly promptTokens: number
  readonly cachedTokens: number
  /** Prompt tokens evaluated per batch. */
  readonly batchSize: number
}

/** What the token budget of a generation depends on. */
export interface BudgetInputs {
  readonly overflow: OverflowStrategy
  readonly contextSize: number
  readonly promptTokens: number
  readonly maxTokens?: number
}

/**
 * The generation budget in tokens, `undefined` when there is none. Under the
 * `fail` strategy it never runs past the context window — the turn ends with
 * finish reason `length` — because letting node-llama-cpp shift the context
 * would drop history silently.
 */
export const tokenBudget = (inputs: BudgetInputs): number | undefined => {
  if (inputs.overflow === "truncate") return inputs.maxTokens
  const room = Math.max(1, inputs.contextSize - inputs.promptTokens - 1)
  return Math.min(inputs.maxTokens ?? room, room)
}

const maxTokens = (generation: Generation): { readonly maxTokens?: number } => {
  const budget = tokenBudget(generation)
  return budget === undefined ? {} : { maxTokens: budget }
}

/** The load-time penalties as node-llama-cpp takes them, `false` when all are off. */
export const repeatPenalty = (penalties: Penalties): LLamaContextualRepeatPenalty | false =>
  penalties.repeatPenalty === 1 && penalties.frequencyPenalty === 0 && penalties.presencePenalty === 0
    ? false
    : {
      penalty: penalties.repeatPenalty,
      frequencyPenalty: penalties.frequencyPenalty,
      presencePenalty: penalties.presencePenalty
    }

const finishReason = (stopReason: LlamaChatResponse["metadata"]["stopReason"], calledTools: boolean): FinishReason =>
  calledTools ? "tool_calls" : stopReason === "maxTokens" ? "length" : "stop"

/**
 * How the turn's tool calls were read: `grammar` (a forced call), `shaped`
 * (a response-format answer), `native` (the chat template's own function
 * calling), `recovered` (raw markup the scanner recognized), or `text` (none).
 */
const parsePath = (mode: Mode, calls: number, recovered: number): string =>
  mode._tag === "Forced" ? "grammar"
  : mode._tag === "Shaped" ? "shaped"
  : calls === 0 ? "text"
  : recovered === calls ? "recovered"
  : recovered === 0 ? "native"
  : "native+recovered"

/** What the model wrote, segments (thoughts) inline as their own markup, function calls as JSON. */
const rawOutput = (result: LlamaChatResponse<ChatModelFunctions | undefined>): string =>
  result.fullResponse.map((part) => (typeof part === "string" ? part : `<${part.segmentType}>${part.text}</${part.segmentType}>`))
    .join("") + (result.functionCalls ?? []).map((call) => `\n[call ${call.functionName} ${JSON.stringify(call.params ?? {})}]`).join("")

/** Whether the generation stopped before the grammar was done: its budget ran out, or a stop sequence came. */
const cutShort = (stopReason: LlamaChatResponse["metadata"]["stopReason"]): boolean =>
  stopReason === "maxTokens" || stopReason === "customStopTrigger"

/** A run node-llama-cpp gave up on, as the typed error: `what` names the run ("generation", "completion"). */
export const runFailure = (
  error: unknown,
  what: string,
  run: { readonly promptTokens: number; readonly contextSize: number }
): ChatModelError => {
  const text = errorText(error)
  // node-llama-cpp's own context shift gives up when even the system prompt does not fit.
  return text.includes("fits the context size")
    ? new ContextOverflow({ promptTokens: run.promptTokens, contextSize: run.contextSize })
    : new ModelError({ reason: "BadResponse", detail: `local ${what} failed: ${text}`, cause: error })
}

const failure = (error: unknown, generation: Generation): ChatModelError => runFailure(error, "generation", generation)

/**
 * The events below are built from the engine's own counters, never from
 * input: validating each against its Schema would sit on the path to the
 * first token and cost more than building it.
 */
const trusted = true

/**
 * Receives node-llama-cpp's per-token callbacks and turns them into events.
 * The callbacks are synchronous and frequent: close deltas are coalesced, and
 * the outlet delivers them off the token loop.
 */
class TurnSink {
  private readonly batcher: DeltaBatcher
  private readonly scanner = new MarkupScanner()
  private readonly recovered: Array<ToolCall> = []
  private readonly startedAt = performance.now()
  /** The sequence's token meter when the generation started, for usage and progress. */
  readonly meterAtStart: TokenMeterState
  firstTokenAt: number | undefined

  constructor(
    private readonly generation: Generation,
    private readonly outlet: EventOutlet<ModelEvent, ChatModelError>
  ) {
    this.batcher = new DeltaBatcher((event) => outlet.offer(event))
    this.meterAtStart = generation.slot.sequence.tokenMeter.getState()
  }

  emit(event: ModelEvent): void {
    this.batcher.event(event)
  }

  private pieces(pieces: ReadonlyArray<Piece>): void {
    for (const piece of pieces) {
      if (piece._tag === "Call") this.recovered.push(new ToolCall({ id: newToolCallId(), name: piece.name, arguments: piece.arguments }))
      else this.batcher.delta(piece._tag, piece.text)
    }
  }

  /** node-llama-cpp's `onResponseChunk`. */
  readonly onResponseChunk = (chunk: LlamaChatResponseChunk): void => {
    if (this.firstTokenAt === undefined) {
      this.firstTokenAt = performance.now()
      const total = this.generation.promptTokens
      this.emit(new PromptProgress({ processed: total, total }, trusted))
    }
    if (this.generation.mode._tag === "Forced") return // the call is read whole at the end
    // A shaped answer is JSON by construction: no tool markup to look for in it.
    if (this.generation.mode._tag === "Shaped") {
      if (chunk.type !== "segment") this.batcher.delta("Text", chunk.text)
      return
    }
    if (chunk.type === "segment") {
      if (chunk.segmentType === "thought") this.batcher.delta("Reasoning", chunk.text)
    } else this.pieces(this.scanner.feed(chunk.text))
  }

  /** The generation finished: tool calls, usage, the finish, the end. */
  complete(result: LlamaChatResponse<ChatModelFunctions | undefined>): void {
    const { generation } = this
    let calls: ReadonlyArray<ToolCall>
    if (generation.mode._tag === "Forced") {
      const read = readForcedCall(result.response)
      if (Either.isRight(read)) calls = [read.right]
      else if (cutShort(result.metadata.stopReason)) {
        // A call the budget (or a stop sequence) cut short is dropped, and the finish reason
        // (`length`, `stop`) says why there is none. OpenAI answers the same cut with `length`
        // and the partial arguments; a client that does not check the finish reason would then
        // run a call with broken JSON, so the partial call is omitted. Refusing such a request up
        // front (400) was the other option, but what fits depends on the tokenizer and on what the
        // model writes: a budget is a limit to honour, not a promise to check.
        calls = []
      } else {
        // The grammar finished, yet its output is not a call: a defect, not the model's choice.
        return this.fail(new ModelError({ reason: "BadResponse", detail: `the forced tool call does not match its schema: ${read.left}` }))
      }
    } else if (generation.mode._tag === "Shaped") {
      calls = []
    } else {
      this.pieces(this.scanner.end())
      const native = (result.functionCalls ?? []).map((call) =>
        new ToolCall({ id: newToolCallId(), name: call.functionName, arguments: JSON.stringify(call.params ?? {}) })
      )
      calls = [...native, ...this.recovered]
    }
    generation.annotate?.({
      "easyai.parse_path": parsePath(generation.mode, calls.length, this.recovered.length),
      "easyai.recovered_calls": generation.mode._tag === "Free" ? this.recovered.length : 0,
      "easyai.response.raw": rawOutput(result)
    })
    for (const call of calls) this.emit(new ToolCallRequested({ call }))
    const { sequence } = generation.slot
    const used = sequence.tokenMeter.diff(this.meterAtStart)
    const generatingMillis = performance.now() - (this.firstTokenAt ?? this.startedAt)
    const evaluatingMillis = (this.firstTokenAt ?? this.startedAt) - this.startedAt
    const evaluated = generation.promptTokens - generation.cachedTokens
    this.emit(
      new Usage({
        promptTokens: generation.promptTokens,
        cachedTokens: generation.cachedTokens,
        completionTokens: used.usedOutputTokens,
        contextUsed: sequence.nextTokenIndex,
        contextSize: generation.contextSize,
        ...(generatingMillis > 0 ? { tokensPerSecond: used.usedOutputTokens / (generatingMillis / 1000) } : {}),
        ...(evaluatingMillis > 0 && evaluated > 0 ? { promptTokensPerSecond: evaluated / (evaluatingMillis / 1000) } : {})
      }, trusted)
    )
    this.emit(new Finished({ reason: finishReason(result.metadata.stopReason, calls.length > 0) }, trusted))
    this.outlet.end()
  }

  fail(error: ChatModelError): void {
    this.batcher.flush()
    this.outlet.fail(error)
  }
}

/** Starts node-llama-cpp on the generation's sequence. */
const start = (generation: Generation, sink: TurnSink, signal: AbortSignal) => {
  const { sampling } = generation
  const common = {
    signal,
    stopOnAbortSignal: false,
    onResponseChunk: sink.onResponseChunk,
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
  const { mode } = generation
  if (mode._tag !== "Free") return chat.generateResponse(generation.history, { ...common, grammar: mode.grammar })
  return chat.generateResponse(generation.history, {
    ...common,
    ...(mode.functions === undefined ? {} : { functions: mode.functions, documentFunctionParams: true })
  })
}

/**
 * Prompt evaluation reports no progress of its own: sample the sequence's
 * token meter until the first token. The meter moves once per batch, so a
 * prompt that fits one batch has nothing to sample.
 */
const sampleProgress = (generation: Generation, sink: TurnSink) => {
  if (generation.promptTokens - generation.cachedTokens <= generation.batchSize) return Effect.void
  const { sequence } = generation.slot
  let reported = generation.cachedTokens
  const sample = Effect.sync(() => {
    const processed = generation.cachedTokens + sequence.tokenMeter.diff(sink.meterAtStart).usedInputTokens
    if (sink.firstTokenAt !== undefined || processed <= reported || processed >= generation.promptTokens) return
    reported = processed
    sink.emit(new PromptProgress({ processed, total: generation.promptTokens }, trusted))
  })
  const untilFirstToken = Schedule.spaced("100 millis").pipe(Schedule.whileOutput(() => sink.firstTokenAt === undefined))
  return Effect.asVoid(Effect.forkScoped(Effect.repeat(sample, untilFirstToken)))
}

/**
 * Starts one generation in the caller's scope and returns its events.
 * Closing the scope (the consumer stopped, or was interrupted) aborts the
 * generation within one token and waits for it to stop.
 */
export const generate = (
  generation: Generation
): Effect.Effect<Stream.Stream<ModelEvent, ChatModelError>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const outlet = new EventOutlet<ModelEvent, ChatModelError>()
    const sink = new TurnSink(generation, outlet)
    sink.emit(new PromptProgress({ processed: generation.cachedTokens, total: generation.promptTokens }, trusted))
    const controller = new AbortController()
    const running = start(generation, sink, controller.signal)
    let settled = false
    const stopped = running.then(
      (result) => {
        settled = true
        sink.complete(result)
      },
      (error: unknown) => {
        settled = true
        sink.fail(failure(error, generation))
      }
    )
    yield* sampleProgress(generation, sink)
    // Interruption: abort, then wait until node-llama-cpp has stopped, so the sequence is free and consistent.
    yield* Effect.addFinalizer(() =>
      settled ? Effect.void : Effect.promise(() => {
        controller.abort()
        return stopped
      })
    )
    return outlet.stream
  })
