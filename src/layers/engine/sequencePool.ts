/**
 * The context's sequences, shared by concurrent requests: each request gets
 * a free sequence, or waits for one. The choice keeps the KV cache as useful
 * as possible: a request goes where the most of its prompt is already
 * evaluated, minus what it would throw away of another conversation — so a
 * conversation returns to its own sequence, and a new one takes an empty
 * sequence rather than evicting a conversation that merely shares its
 * system prompt.
 *
 * @module
 */
import { Effect, Ref, type Scope } from "effect"
import type { LlamaChat, LlamaContextSequence, Token } from "node-llama-cpp"

/** One sequence and the chat driving it. */
export interface Slot {
  readonly sequence: LlamaContextSequence
  readonly chat: LlamaChat
}

/** Hands out sequences. */
export interface SequencePool {
  /** The free slot sharing the longest prefix with `prompt`, held until the scope closes. */
  readonly acquire: (prompt: ReadonlyArray<Token>) => Effect.Effect<Slot, never, Scope.Scope>
}

/** How many leading tokens a sequence already holds of `prompt`. */
export const reusablePrefix = (sequence: LlamaContextSequence, prompt: ReadonlyArray<Token>): number =>
  sequence.compareContextTokens([...prompt]).firstDifferentIndex

/** Tokens of `prompt` a sequence would reuse, minus the tokens of its own it would discard. */
export const routingScore = (sequence: LlamaContextSequence, prompt: ReadonlyArray<Token>): number => {
  const reused = reusablePrefix(sequence, prompt)
  return reused - (sequence.nextTokenIndex - reused)
}

/** A pool over `slots`. */
export const make = (slots: ReadonlyArray<Slot>): Effect.Effect<SequencePool> =>
  Effect.gen(function*() {
    const available = yield* Effect.makeSemaphore(slots.length)
    const free = yield* Ref.make<ReadonlyArray<Slot>>(slots)
    const take = (prompt: ReadonlyArray<Token>) =>
      Ref.modify(free, (candidates) => {
        let best = candidates[0]
        let bestScore = Number.NEGATIVE_INFINITY
        for (const slot of candidates) {
          const score = routingScore(slot.sequence, prompt)
          if (score > bestScore) {
            best = slot
            bestScore = score
          }
        }
        return [best, candidates.filter((slot) => slot !== best)] as const
      }).pipe(
        // The semaphore guarantees a free slot: finding none is a broken invariant.
        Effect.flatMap((slot) => (slot === undefined ? Effect.dieMessage("no free sequence") : Effect.succeed(slot)))
      )
    return {
      acquire: (prompt) =>
        Effect.acquireRelease(
          Effect.zipRight(available.take(1), take(prompt)),
          (slot) => Effect.zipRight(Ref.update(free, (slots) => [...slots, slot]), available.release(1))
        )
    }
  })
