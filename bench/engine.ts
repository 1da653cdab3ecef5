/**
 * The local engine against raw node-llama-cpp, side by side in one run on the
 * same model, threads, flash-attention setting, prompts and greedy sampling.
 *
 *   npm run bench:engine -- <model.gguf> [--threads=1] [--rounds=5] [--fa=off|on|auto] [--parts=gen,prefix,parallel]
 *
 * Figures (medians over the rounds, after one warm-up; raw and easyai alternate):
 * - gen: end-to-end tokens/second and time to first token of one 128-token
 *   greedy answer — easyai `ChatModel.local` streaming vs raw `LlamaChat`,
 *   and the stream floor: raw `LlamaChat` behind the thinnest Effect `Stream`
 *   (see `floorChat`), what any Stream-typed model pays at least.
 * - prefix: a 10-turn conversation (user turns ~50 tokens, replies ≤ 32):
 *   time to first token of turn 1 and turn 10, and turn 10 again on a fresh
 *   context (no KV-cache reuse) — for easyai and for raw `LlamaChatSession`.
 * - parallel: 1 request alone vs 4 at once on a context with 4 sequences,
 *   aggregate tokens/second — for easyai and for raw `LlamaChat`s.
 *
 * Progress lines start with "# "; the last line is one JSON object.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Stream } from "effect"
import {
  type ChatHistoryItem,
  getLlama,
  LlamaChat,
  LlamaChatSession,
  type LlamaContext,
  LlamaLogLevel,
  type LlamaModel
} from "node-llama-cpp"
import {
  AssistantMessage,
  type ChatMessage,
  ChatModel,
  type ChatRequest,
  LocalChatModel,
  SystemMessage,
  UserMessage
} from "../src/index.js"
import { presets } from "../src/domain/Sampling.js"
import { defaultWindowMillis } from "../src/layers/engine/deltaBatcher.js"
import { anchorEngineConfig, benchArgs } from "./args.js"
import { log, median, round2 } from "./stats.js"

// ---------- options ----------
const parsed = benchArgs(
  "npm run bench:engine -- <model.gguf> [--threads=1] [--rounds=5] [--fa=off|on|auto] [--parts=gen,prefix,parallel]",
  5
)
const { flashAttention, modelPath, option, rounds, threads } = parsed
/** The figures to measure (all by default), so one of them can be repeated alone. */
const parts = new Set(option("parts", "gen,prefix,parallel").split(","))
const contextSize = 2048
const batchSize = 512

// ---------- the anchor's constants ----------
const SYSTEM_PROMPT = "You are a storyteller."
const GEN_PROMPT = "Once upon a time, there was a little girl named Lily. Tell me a story about her and her dog."
const MAX_TOKENS = 128
const TURNS = 10
const REPLY_TOKENS = 32
const PARALLEL_PROMPTS = [
  "Once upon a time, there was a little girl named Lily. Tell me a story about her and her dog.",
  "Tom had a big red ball. Tell me what happened when he took it to the park.",
  "There was a small bird who could not fly. Tell me how she learned.",
  "Sue and Ben found a box in the garden. Tell me what was inside."
]
const WORDS = ("the little dog ran to the park and found a red ball under the big tree then a girl named " +
  "lily came by with her mom they played together all day and the sun was warm and bright so everyone " +
  "was happy until it started to rain and they went home to eat soup and bread").split(" ")
const greedy = { temperature: 0, topK: 1, topP: 1, minP: 0 }

// ---------- helpers ----------

interface Run {
  readonly ttftMs: number
  readonly totalMs: number
  readonly tokens: number
  readonly text: string
}
const tokPerSec = (run: Run) => run.tokens / (run.totalMs / 1000)

const userMessage = (model: LlamaModel, turn: number, target = 50): string => {
  const words: Array<string> = []
  let i = turn * 7
  let text = `Turn ${turn + 1}: `
  while (model.tokenize(text).length < target) {
    words.push(WORDS[i++ % WORDS.length]!)
    text = `Turn ${turn + 1}: ${words.join(" ")}.`
  }
  return text
}

// ---------- raw node-llama-cpp ----------
const rawHistory = (messages: ReadonlyArray<ChatMessage>): Array<ChatHistoryItem> => [
  ...messages.map((m): ChatHistoryItem =>
    m._tag === "SystemMessage"
      ? { type: "system", text: m.content }
      : m._tag === "UserMessage"
      ? { type: "user", text: m.content }
      : { type: "model", response: [m._tag === "AssistantMessage" ? m.content : ""] }
  ),
  { type: "model", response: [] }
]
const rawOptions = (maxTokens: number) => ({ maxTokens, ...greedy, repeatPenalty: false as const })

const rawChat = async (chat: LlamaChat, messages: ReadonlyArray<ChatMessage>, maxTokens: number): Promise<Run> => {
  const start = performance.now()
  let first: number | undefined
  let tokens = 0
  const result = await chat.generateResponse(rawHistory(messages), {
    ...rawOptions(maxTokens),
    onToken: (chunk) => {
      first ??= performance.now()
      tokens += chunk.length
    }
  })
  const end = performance.now()
  return { ttftMs: (first ?? end) - start, totalMs: end - start, tokens, text: result.response }
}

// ---------- the floor: raw node-llama-cpp behind the thinnest Effect Stream ----------
/**
 * Raw `LlamaChat` adapted to a `Stream` as Effect's documentation teaches
 * (`Stream.async`), its text joined in the same window as easyai's, read with
 * `Stream.runForEach`: what any Stream-typed ChatModel pays at least. It
 * splits easyai's distance from raw into what a Stream costs and what easyai
 * adds on top.
 */
const floorChat = (chat: LlamaChat, messages: ReadonlyArray<ChatMessage>, maxTokens: number) =>
  Effect.gen(function*() {
    const start = performance.now()
    let first: number | undefined
    let tokens = 0
    let text = ""
    const pieces = Stream.async<string>((emit) => {
      let held = ""
      let lastFlush = Number.NEGATIVE_INFINITY
      chat.generateResponse(rawHistory(messages), {
        ...rawOptions(maxTokens),
        onToken: (chunk) => {
          tokens += chunk.length
        },
        onTextChunk: (piece) => {
          held += piece
          const now = performance.now()
          if (now - lastFlush < defaultWindowMillis) return
          lastFlush = now
          void emit.single(held)
          held = ""
        }
      }).then(() => {
        if (held !== "") void emit.single(held)
        void emit.end()
      }, (error: unknown) => void emit.die(error))
    })
    yield* Stream.runForEach(pieces, (piece) =>
      Effect.sync(() => {
        first ??= performance.now()
        text += piece
      }))
    const end = performance.now()
    return { ttftMs: (first ?? end) - start, totalMs: end - start, tokens, text } satisfies Run
  })

// ---------- easyai ----------
const easyaiChat = (request: ChatRequest) =>
  Effect.gen(function*() {
    const model = yield* ChatModel
    const start = performance.now()
    let first: number | undefined
    let tokens = 0
    let text = ""
    yield* Stream.runForEach(model.stream(request), (event) =>
      Effect.sync(() => {
        if (event._tag === "TextDelta") {
          first ??= performance.now()
          text += event.text
        }
        if (event._tag === "Usage") tokens = event.completionTokens
      }))
    const end = performance.now()
    return { ttftMs: (first ?? end) - start, totalMs: end - start, tokens, text } satisfies Run
  })

const engineLayer = (sequences = 1) =>
  LocalChatModel.layerFrom(anchorEngineConfig(parsed, { contextSize, batchSize, sequences }))

const request = (messages: ReadonlyArray<ChatMessage>, maxTokens: number): ChatRequest => ({
  messages,
  tools: [],
  sampling: presets.deterministic,
  maxTokens
})

// ---------- the run ----------
const program = Effect.gen(function*() {
  const llama = yield* Effect.promise(() => getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error }))
  const model = yield* Effect.promise(() => llama.loadModel({ modelPath }))
  const makeContext = (sequences = 1): Promise<LlamaContext> =>
    model.createContext({ contextSize, batchSize, threads, flashAttention, sequences })
  log(`model ${modelPath}, threads ${threads}, flash attention ${String(flashAttention)}, rounds ${rounds}`)

  // gen: a new question each round (the system prompt stays cached, as in a real conversation)
  const gen = !parts.has("gen") ? undefined : yield* Effect.scoped(Effect.gen(function*() {
    const context = yield* Effect.promise(() => makeContext())
    const chat = new LlamaChat({ contextSequence: context.getSequence() })
    // A context of its own, as easyai's: a sequence that had just answered the same question would skip its prompt.
    const floorContext = yield* Effect.promise(() => makeContext())
    const floorChatOn = new LlamaChat({ contextSequence: floorContext.getSequence() })
    const raw: Array<Run> = []
    const ours: Array<Run> = []
    const floor: Array<Run> = []
    for (let r = -1; r < rounds; r++) {
      const messages = [
        new SystemMessage({ content: SYSTEM_PROMPT }),
        new UserMessage({ content: `Round ${r + 2}. ${GEN_PROMPT}` })
      ]
      const contenders = [
        Effect.promise(() => rawChat(chat, messages, MAX_TOKENS)),
        easyaiChat(request(messages, MAX_TOKENS)),
        floorChat(floorChatOn, messages, MAX_TOKENS)
      ]
      // Rotate who goes first, so drift on a shared machine favours none of them.
      const order = contenders.map((_, k) => (k + r + 1) % contenders.length)
      const runs: Array<Run> = []
      for (const k of order) runs[k] = yield* contenders[k]!
      const [rawRun, ourRun, floorRun] = [runs[0]!, runs[1]!, runs[2]!]
      if (r >= 0) {
        raw.push(rawRun)
        ours.push(ourRun)
        floor.push(floorRun)
      }
      if (ourRun.text !== rawRun.text || floorRun.text !== rawRun.text) log(`gen round ${r + 2}: the answers differ`)
    }
    yield* Effect.promise(() => Promise.all([context.dispose(), floorContext.dispose()]))
    // Paired: each round's figure over the one measured next to it.
    const pairedRatio = (runs: ReadonlyArray<Run>, baseline: ReadonlyArray<Run>) =>
      round2(median(runs.map((run, i) => tokPerSec(run) / tokPerSec(baseline[i]!))))
    return {
      maxTokens: MAX_TOKENS,
      rawTokPerSec: round2(median(raw.map(tokPerSec))),
      easyaiTokPerSec: round2(median(ours.map(tokPerSec))),
      ratio: pairedRatio(ours, raw),
      streamFloorTokPerSec: round2(median(floor.map(tokPerSec))),
      streamFloorOverRaw: pairedRatio(floor, raw),
      easyaiOverStreamFloor: pairedRatio(ours, floor),
      rawTtftMs: round2(median(raw.map((run) => run.ttftMs))),
      easyaiTtftMs: round2(median(ours.map((run) => run.ttftMs))),
      tokens: ours[0]?.tokens ?? 0
    }
  }).pipe(Effect.provide(engineLayer())))
  if (gen !== undefined) {
    log(`gen: raw ${gen.rawTokPerSec} tok/s, easyai ${gen.easyaiTokPerSec} tok/s, ratio ${gen.ratio}; ` +
      `stream floor ${gen.streamFloorTokPerSec} tok/s, floor÷raw ${gen.streamFloorOverRaw}, easyai÷floor ${gen.easyaiOverStreamFloor}`)
  }

  // prefix: 10 turns on one sequence, then turn 10 on a fresh one
  const turns = Array.from({ length: TURNS }, (_, i) => userMessage(model, i))
  const easyaiPrefix = Effect.gen(function*() {
    const messages: Array<ChatMessage> = [new SystemMessage({ content: SYSTEM_PROMPT })]
    const ttft: Array<number> = []
    for (const turn of turns) {
      messages.push(new UserMessage({ content: turn }))
      const run = yield* easyaiChat(request(messages, REPLY_TOKENS))
      ttft.push(run.ttftMs)
      messages.push(new AssistantMessage({ content: run.text }))
    }
    const fresh = yield* easyaiChat(request(messages.slice(0, -1), REPLY_TOKENS)).pipe(Effect.provide(engineLayer()))
    return { ttft1: ttft[0]!, ttft10: ttft[TURNS - 1]!, fresh10: fresh.ttftMs }
  }).pipe(Effect.provide(engineLayer()))
  const rawPrefix = Effect.promise(async () => {
    const context = await makeContext()
    const session = new LlamaChatSession({ contextSequence: context.getSequence(), systemPrompt: SYSTEM_PROMPT })
    const ttft: Array<number> = []
    for (const turn of turns) {
      const start = performance.now()
      let first: number | undefined
      await session.prompt(turn, { maxTokens: REPLY_TOKENS, ...greedy, onToken: () => (first ??= performance.now()) })
      ttft.push((first ?? performance.now()) - start)
    }
    const history = session.getChatHistory().slice(0, -2)
    const freshContext = await makeContext()
    const fresh = new LlamaChatSession({ contextSequence: freshContext.getSequence(), systemPrompt: SYSTEM_PROMPT })
    fresh.setChatHistory(history)
    const start = performance.now()
    let first: number | undefined
    await fresh.prompt(turns[TURNS - 1]!, { maxTokens: REPLY_TOKENS, ...greedy, onToken: () => (first ??= performance.now()) })
    const fresh10 = (first ?? performance.now()) - start
    await freshContext.dispose()
    await context.dispose()
    return { ttft1: ttft[0]!, ttft10: ttft[TURNS - 1]!, fresh10 }
  })
  const ourPrefixRuns: Array<{ ttft1: number; ttft10: number; fresh10: number }> = []
  const rawPrefixRuns: Array<{ ttft1: number; ttft10: number; fresh10: number }> = []
  for (let r = parts.has("prefix") ? -1 : rounds; r < rounds; r++) {
    const rawRun = yield* rawPrefix
    const ourRun = yield* easyaiPrefix
    if (r >= 0) {
      rawPrefixRuns.push(rawRun)
      ourPrefixRuns.push(ourRun)
    }
  }
  const summarize = (runs: ReadonlyArray<{ ttft1: number; ttft10: number; fresh10: number }>) => ({
    ttft1Ms: round2(median(runs.map((r) => r.ttft1))),
    ttft10Ms: round2(median(runs.map((r) => r.ttft10))),
    freshTtft10Ms: round2(median(runs.map((r) => r.fresh10))),
    ttft10OverTtft1: round2(median(runs.map((r) => r.ttft10 / r.ttft1))),
    reusedOverFresh10: round2(median(runs.map((r) => r.ttft10 / r.fresh10)))
  })
  const prefix = parts.has("prefix") ? { raw: summarize(rawPrefixRuns), easyai: summarize(ourPrefixRuns) } : undefined
  if (prefix !== undefined) log(`prefix: easyai ttft10/ttft1 ${prefix.easyai.ttft10OverTtft1}, reused/fresh ${prefix.easyai.reusedOverFresh10}; ` +
    `raw ttft10/ttft1 ${prefix.raw.ttft10OverTtft1}, reused/fresh ${prefix.raw.reusedOverFresh10}`)

  // parallel: 1 alone vs 4 at once
  const parallel = !parts.has("parallel") ? undefined : yield* Effect.scoped(Effect.gen(function*() {
    const context = yield* Effect.promise(() => makeContext(4))
    const chats = PARALLEL_PROMPTS.map(() => new LlamaChat({ contextSequence: context.getSequence() }))
    const messages = (k: number, r: number) => [
      new SystemMessage({ content: SYSTEM_PROMPT }),
      new UserMessage({ content: `Round ${r + 2}. ${PARALLEL_PROMPTS[k]!}` })
    ]
    const rawRatios: Array<number> = []
    const ourRatios: Array<number> = []
    const aggregate = (runs: ReadonlyArray<Run>, ms: number) => runs.reduce((sum, run) => sum + run.tokens, 0) / (ms / 1000)
    for (let r = -1; r < rounds; r++) {
      let start = performance.now()
      const rawOne = yield* Effect.promise(() => rawChat(chats[0]!, messages(0, r), MAX_TOKENS))
      const rawOneTps = aggregate([rawOne], performance.now() - start)
      start = performance.now()
      const rawAll = yield* Effect.promise(() => Promise.all(chats.map((chat, k) => rawChat(chat, messages(k, r), MAX_TOKENS))))
      const rawAllTps = aggregate(rawAll, performance.now() - start)
      start = performance.now()
      const ourOne = yield* easyaiChat(request(messages(0, r), MAX_TOKENS))
      const ourOneTps = aggregate([ourOne], performance.now() - start)
      start = performance.now()
      const ourAll = yield* Effect.forEach(PARALLEL_PROMPTS, (_, k) => easyaiChat(request(messages(k, r), MAX_TOKENS)), {
        concurrency: "unbounded"
      })
      const ourAllTps = aggregate(ourAll, performance.now() - start)
      if (r >= 0) {
        rawRatios.push(rawAllTps / rawOneTps)
        ourRatios.push(ourAllTps / ourOneTps)
      }
    }
    yield* Effect.promise(() => context.dispose())
    const rawRatio = median(rawRatios)
    const ourRatio = median(ourRatios)
    return {
      sequences: 4,
      rawRatio4over1: round2(rawRatio),
      easyaiRatio4over1: round2(ourRatio),
      easyaiOverRaw: round2(ourRatio / rawRatio)
    }
  }).pipe(Effect.provide(engineLayer(4))))
  if (parallel !== undefined) log(`parallel: raw 4/1 ${parallel.rawRatio4over1}, easyai 4/1 ${parallel.easyaiRatio4over1}`)

  yield* Effect.promise(() => model.dispose())
  yield* Effect.promise(() => llama.dispose())
  console.log(JSON.stringify({
    bench: "easyai-engine",
    model: modelPath,
    threads,
    flashAttention,
    rounds,
    gen,
    prefix,
    parallel
  }))
})

NodeRuntime.runMain(program.pipe(Effect.provide(Layer.empty)))
