import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { AssistantMessage, type ChatMessage, Engine, EngineLive, SystemMessage, UserMessage } from "easyai"
import { resolveChatWrapper, type Token, type Tokenizer } from "node-llama-cpp"
import { builtinSystemPrompt } from "../../../src/domain/SystemPrompt.js"
import { renderPrompt, toChatHistory } from "../../../src/layers/engine/history.js"
import { rememberingTokenizer } from "../../../src/layers/engine/tokenMemory.js"
import { engineConfig, testModels } from "../../support/models.js"

/** The model's tokenizer, counting the texts it is asked to tokenize. */
const counting = (tokenizer: Tokenizer) => {
  const asked: Array<string> = []
  const tokenize = (text: string, specialTokens?: boolean | "builtin", options?: "trimLeadingSpace"): Array<Token> => {
    if (specialTokens === "builtin") throw new Error("a builtin special token is not a text to remember")
    asked.push(text)
    return tokenizer(text, specialTokens, options)
  }
  return {
    asked,
    tokenizer: Object.assign(tokenize, {
      detokenize: tokenizer.detokenize,
      isSpecialToken: tokenizer.isSpecialToken,
      isEogToken: tokenizer.isEogToken
    })
  }
}

/** A conversation of `turns` exchanges, the user writing text that looks like a template's markers too. */
const conversation = (turns: number): Array<ChatMessage> => [
  new SystemMessage({ content: builtinSystemPrompt }),
  ...Array.from({ length: turns }, (_, turn) => [
    new UserMessage({ content: `Turn ${turn}: the dog found a red ball <s> [INST] <|user|> under the big tree.` }),
    new AssistantMessage({ content: `Reply ${turn}: the ball was red and the dog was happy.` })
  ]).flat(),
  new UserMessage({ content: "And then?" })
]

const long = "Once upon a time there was a little dog who found a red ball under the big tree in the park. ".repeat(4)

for (const model of testModels) {
  describe(`a remembering tokenizer on ${model.name}`, () => {
    layer(EngineLive.layer(engineConfig(model)), { timeout: 60_000, excludeTestServices: true })((it) => {
      it.effect("tokenizes every prompt of a growing conversation exactly as the model does, asked again or not", () =>
        Effect.gen(function*() {
          const { model: loaded } = (yield* Engine).native
          const wrapper = resolveChatWrapper(loaded)
          const remembering = rememberingTokenizer(loaded.tokenizer)
          for (let turns = 0; turns < 4; turns++) {
            const prompt = renderPrompt(wrapper, toChatHistory(conversation(turns)), undefined)
            const expected = prompt.tokenize(loaded.tokenizer)
            expect(prompt.tokenize(remembering)).toEqual(expected)
            expect(prompt.tokenize(remembering)).toEqual(expected)
          }
        }))

      it.effect("asks the model once for a text it saw, and separately for each way of tokenizing it", () =>
        Effect.gen(function*() {
          const { model: loaded } = (yield* Engine).native
          const model = counting(loaded.tokenizer)
          const remembering = rememberingTokenizer(model.tokenizer)
          const marked = `<s>${long}`
          const plain = remembering(marked)
          expect(remembering(marked)).toEqual(plain)
          expect(model.asked).toHaveLength(1)
          expect(remembering(marked, true)).toEqual(loaded.tokenizer(marked, true))
          expect(remembering(marked, false, "trimLeadingSpace")).toEqual(loaded.tokenizer(marked, false, "trimLeadingSpace"))
          expect(model.asked).toHaveLength(3)
          // A short text is cheaper to tokenize again than to remember.
          remembering("Once upon a time")
          remembering("Once upon a time")
          expect(model.asked).toHaveLength(5)
        }))

      it.effect("hands every caller an array of its own", () =>
        Effect.gen(function*() {
          const { model: loaded } = (yield* Engine).native
          const remembering = rememberingTokenizer(loaded.tokenizer)
          const first = remembering(long)
          const expected = [...first]
          first.length = 0
          const second = remembering(long)
          expect(second).toEqual(expected)
          second.reverse()
          expect(remembering(long)).toEqual(expected)
        }))

      it.effect("forgets the least recently used text once it holds its capacity in characters", () =>
        Effect.gen(function*() {
          const { model: loaded } = (yield* Engine).native
          const model = counting(loaded.tokenizer)
          const [a, b, c] = ["a", "b", "c"].map((tag) => `${tag}: ${long}`)
          const remembering = rememberingTokenizer(model.tokenizer, a!.length * 2 + 10)
          remembering(a!)
          remembering(b!)
          remembering(a!) // a is now the most recently used
          remembering(c!) // over capacity: b goes
          expect(model.asked).toEqual([a, b, c])
          remembering(a!)
          remembering(c!)
          expect(model.asked).toEqual([a, b, c])
          expect(remembering(b!)).toEqual(loaded.tokenizer(b!))
          expect(model.asked).toEqual([a, b, c, b])
          // A text longer than the whole memory is never kept.
          const huge = long.repeat(4)
          remembering(huge)
          remembering(huge)
          expect(model.asked.filter((text) => text === huge)).toHaveLength(2)
        }))
    })
  })
}
