/**
 * Template-free completion: the model continues a raw prompt, with no chat
 * template around it, on a sequence of the pool — what `/v1/completions`
 * serves. Text arrives as `TextDelta`s, then `Usage` and `Finished`.
 *
 * @module
 */
import { Effect, type Scope, type Stream } from "effect"
import { LlamaCompletion, type Token } from "node-llama-cpp"
import type { ChatModelError } from "../../domain/errors.js"
import { Finished, type ModelEvent, Usage } from "../../domain/ModelEvent.js"
import { DeltaBatcher } from "./deltaBatcher.js"
import { EventOutlet } from "./eventOutlet.js"
import { repeatPenalty, runFailure, type SequenceRun, tokenBudget } from "./generate.js"

/** Everything one completion needs. */
export interface Completion extends SequenceRun {
  readonly prompt: ReadonlyArray<Token>
}

/**
 * Starts one completion in the caller's scope and returns its events.
 * Closing the scope aborts it within one token and waits until it stopped,
 * so the sequence goes back to the pool consistent.
 */
export const complete = (completion: Completion): Effect.Effect<Stream.Stream<ModelEvent, ChatModelError>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const outlet = new EventOutlet<ModelEvent, ChatModelError>()
    const batcher = new DeltaBatcher((event) => outlet.offer(event))
    const { sequence } = completion.slot
    // The sequence's own LlamaChat stays in the pool: a completion is a second, short-lived user of it.
    const llama = new LlamaCompletion({ contextSequence: sequence })
    const meter = sequence.tokenMeter.getState()
    const controller = new AbortController()
    const budget = tokenBudget({
      overflow: completion.overflow,
      contextSize: completion.contextSize,
      promptTokens: completion.prompt.length,
      ...(completion.maxTokens === undefined ? {} : { maxTokens: completion.maxTokens })
    })
    const { sampling } = completion
    const running = llama.generateCompletionWithMeta([...completion.prompt], {
      signal: controller.signal,
      stopOnAbortSignal: false,
      onTextChunk: (text) => batcher.delta("Text", text),
      temperature: sampling.temperature,
      topK: sampling.topK,
      topP: sampling.topP,
      minP: sampling.minP,
      repeatPenalty: repeatPenalty(completion.penalties),
      ...(budget === undefined ? {} : { maxTokens: budget }),
      ...(completion.seed === undefined ? {} : { seed: completion.seed }),
      ...(completion.stop === undefined || completion.stop.length === 0 ? {} : { customStopTriggers: [...completion.stop] })
    })
    let settled = false
    const stopped = running.then(
      (result) => {
        settled = true
        const used = sequence.tokenMeter.diff(meter)
        batcher.event(new Usage({ promptTokens: completion.prompt.length, completionTokens: used.usedOutputTokens, contextSize: completion.contextSize }))
        batcher.event(new Finished({ reason: result.metadata.stopReason === "maxTokens" ? "length" : "stop" }))
        outlet.end()
      },
      (error: unknown) => {
        settled = true
        batcher.flush()
        outlet.fail(runFailure(error, "completion", { promptTokens: completion.prompt.length, contextSize: completion.contextSize }))
      }
    )
    yield* Effect.addFinalizer(() =>
      Effect.promise(() => {
        if (!settled) controller.abort()
        return stopped
      }).pipe(Effect.ensuring(Effect.sync(() => llama.dispose({ disposeSequence: false }))))
    )
    return outlet.stream
  })
