/**
 * The context's sequences, shared by concurrent requests: each request gets
 * a free sequence — the one already holding the longest prefix of its
 * prompt, so the KV cache is reused — or waits for one.
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

/** A pool over `slots`. */
export const make = (slots: ReadonlyArray<Slot>): Effect.Effect<SequencePool> =>
  Effect.gen(function*() {
    const available = yield* Effect.makeSemaphore(slots.length)
    const free = yield* Ref.make<ReadonlyArray<Slot>>(slots)
    const take = (prompt: ReadonlyArray<Token>) =>
      Ref.modify(free, (candidates) => {
        let best = candidates[0]
        let bestPrefix = -1
        for (const slot of candidates) {
          const prefix = reusablePrefix(slot.sequence, prompt)
          if (prefix > bestPrefix) {
            best = slot
            bestPrefix = prefix
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
