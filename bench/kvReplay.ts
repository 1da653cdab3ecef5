/**
 * The raw anchor of a served conversation: node-llama-cpp alone doing the
 * KV-cache work a server reported for each turn, with no framework in
 * between.
 *
 * A turn the server answered with `cache_n` tokens from the cache,
 * `prompt_n` evaluated and `predicted_n` generated is replayed on a bare
 * `LlamaContextSequence`: the sequence keeps its first `cache_n` tokens
 * (what the server kept), evaluates `prompt_n` new ones and samples the
 * first token (its time to first token), then generates the rest of the
 * answer so that the next turn finds what the server's next turn found.
 * Which tokens they are does not change the work a dense model does, so
 * the filler is any run of ordinary text tokens. A time-to-first-token
 * ratio that the replay reads too is the model's own cost of the longer
 * context, not easyai's.
 */
import type { LlamaContextSequence, LlamaModel, Token } from "node-llama-cpp"

/** What a server reported for one turn: `timings.cache_n`, `prompt_n`, `predicted_n`. */
export interface KvWork {
  readonly cachedTokens: number
  readonly evaluatedTokens: number
  readonly predictedTokens: number
}

/** A sequence replaying one server's turns. */
export interface KvReplay {
  /** Replays a turn; resolves to the milliseconds from its start to the first sampled token. */
  readonly turn: (work: KvWork) => Promise<number>
}

/** Ordinary text tokens to stand in for a prompt's, at least `length` of them. */
const fillerTokens = (model: LlamaModel, text: string, length: number): Array<Token> => {
  const unit = model.tokenize(text)
  if (unit.length === 0) throw new Error("the filler text has no tokens")
  return Array.from({ length }, (_, i) => unit[i % unit.length]!)
}

/** A replay on `sequence`, whose filler is `text` tokenized; `capacity` bounds a turn's tokens. */
export const kvReplay = (model: LlamaModel, sequence: LlamaContextSequence, text: string, capacity: number): KvReplay => {
  const filler = fillerTokens(model, text, capacity)
  return {
    turn: async ({ cachedTokens, evaluatedTokens, predictedTokens }) => {
      // The server kept more than this sequence holds (a tool hop it evaluated): bring it level first, untimed.
      const held = sequence.nextTokenIndex
      if (held < cachedTokens) await sequence.evaluateWithoutGeneratingNewTokens(filler.slice(held, cachedTokens))
      const start = performance.now()
      if (held > cachedTokens) await sequence.eraseContextTokenRanges([{ start: cachedTokens, end: held }])
      const prompt = filler.slice(cachedTokens, cachedTokens + Math.max(1, evaluatedTokens))
      let firstToken = Number.NaN
      let generated = 0
      for await (const _token of sequence.evaluate(prompt, { temperature: 0 })) {
        if (generated === 0) firstToken = performance.now() - start
        generated++
        if (generated >= Math.max(1, predictedTokens)) break
      }
      return firstToken
    }
  }
}
