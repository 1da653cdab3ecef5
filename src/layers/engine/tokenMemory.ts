/**
 * A tokenizer that remembers what it tokenized.
 *
 * A chat's prompt is rendered and tokenized on every request, and all of
 * it but the newest turn was tokenized on the request before: the chat
 * template cuts the prompt at its special tokens, so the system prompt,
 * the tools' schemas and every earlier message come back as the same texts.
 * Tokenizing is a pure function of the model and the text, and costs a few
 * microseconds a token on a CPU: a long conversation paid milliseconds on
 * every turn to learn what it already knew. (A template without special
 * tokens renders the prompt as one text, which is new on every turn; it
 * costs what it did.)
 *
 * The memory is bounded by the characters it holds, the least recently
 * used text first out.
 *
 * @module
 */
import type { BuiltinSpecialTokenValue, Token, Tokenizer } from "node-llama-cpp"
import { makeRecentMap } from "../../domain/recentMap.js"

/** How many characters of tokenized text are remembered: a few long conversations' worth. */
export const tokenMemoryCharacters = 4_000_000

/** Texts shorter than this are tokenized again: remembering them costs about what it saves. */
const shortestRemembered = 64

/** `tokenizer`, remembering up to `capacity` characters of the texts it tokenized and their tokens. */
export const rememberingTokenizer = (tokenizer: Tokenizer, capacity: number = tokenMemoryCharacters): Tokenizer => {
  const known = makeRecentMap<ReadonlyArray<Token>>(capacity, (text) => text.length)
  const tokenize = (text: string, specialTokens?: boolean | "builtin", options?: "trimLeadingSpace"): Array<Token> => {
    // The text of a builtin special token is one of its names (the overload node-llama-cpp declares).
    if (specialTokens === "builtin") return tokenizer(text as BuiltinSpecialTokenValue, "builtin")
    if (text.length < shortestRemembered) return tokenizer(text, specialTokens, options)
    // The flags lead the key, so that one text tokenized two ways is two entries.
    const key = `${specialTokens === true ? "s" : "-"}${options === "trimLeadingSpace" ? "t" : "-"}${text}`
    // A copy either way: the caller owns the array it gets, as it does from the model's own tokenizer.
    const remembered = known.get(key)
    if (remembered !== undefined) return remembered.slice()
    const tokens = tokenizer(text, specialTokens, options)
    known.set(key, tokens.slice())
    return tokens
  }
  return Object.assign(tokenize, {
    detokenize: tokenizer.detokenize,
    isSpecialToken: tokenizer.isSpecialToken,
    isEogToken: tokenizer.isEogToken
  })
}
