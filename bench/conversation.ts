/**
 * A conversation as a person has it, through a real `easyai serve` with its
 * default settings: turns at least `--gap` ms apart (1.1 s by default), each
 * request carrying the whole history, streamed.
 *
 *   npm run bench:conversation -- [model.gguf …] [--turns=10] [--gap=1100] [--words=12] [--reply=32]
 *                                 [--runs=6] [--threads=1] [--ctx=N] [--fallback-ctx=8192]
 *                                 [--tools=both|on|off] [--no-tools]
 *
 * Without a model path it runs every test model (`test/support/models.ts`:
 * the generated tiny model and `../shared/models/*.gguf`). For each model
 * and each toolbelt (the default tools, and `--no-tools`), two servers run
 * side by side: one with its default per-request preamble, and the baseline,
 * asked the same messages with `X-Easyai-Inject: off`. Each turn goes to
 * both, one after the other, and the default server's reply joins the
 * history, so both hold the same conversation and any drift of the machine
 * hits both. Who is asked first alternates from turn to turn and from run to
 * run, so that whatever the position costs (the first request after a
 * pause meets an idle machine, the second one meets the first server still
 * tidying up) falls on both sides alike.
 * A user turn is a sentence of `--words` words (12 by default: a chat
 * message as people type them), different each turn.
 *
 * Each turn is also replayed on raw node-llama-cpp (`kvReplay.ts`): the KV
 * work each server reported (tokens kept from the cache, evaluated,
 * generated), on a bare context sequence of the server's size, timed to
 * its first sampled token. Its default ÷ baseline ratio is what the longer
 * prompt costs the model itself, with no easyai code involved: the anchor
 * a target beyond it is read against.
 *
 * Per turn: the time to first token (the first content or reasoning delta,
 * else the end of the answer) and the share of the prompt that came from the
 * KV cache (`timings.cache_n` ÷ (`cache_n` + `prompt_n`), as the server
 * reports them), and the share of what the previous turn left in the cache
 * (its prompt and its answer) that this turn reused. The conversation is
 * held `--runs` times on fresh servers; the summary gives the median time to
 * first token of the last turn both answered in every run, default ÷
 * baseline, the median of that ratio over every turn from 2 on in every run
 * (steadier on a busy machine), the same two ratios on the raw anchor, the
 * lowest cached share from turn 2 on, and
 * the lowest reuse of the previous turn from turn 2 on (each on both
 * servers).
 *
 * `--threads` is passed to the servers (1 by default, as the anchors), and
 * `--ctx` when given; no other setting is, and no settings file is read
 * (HOME is a fresh temporary folder). When a model's default context cannot
 * hold the first turn (the default tools' schemas on a model with a tiny
 * vocabulary), the run says so and is held again with `--ctx=<fallback-ctx>`.
 * A turn a server refuses ends that run, and its error is reported.
 *
 * Progress lines start with "# "; the last line is one JSON object.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Effect } from "effect"
import { getLlama, type Llama, LlamaLogLevel, type LlamaModel } from "node-llama-cpp"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { testModels } from "../test/support/models.js"
import { commandLine, wholeNumber } from "./commandLine.js"
import { kvReplay, type KvReplay } from "./kvReplay.js"
import { field, log, median, round2 } from "./stats.js"

// ---------- options ----------
const cli = commandLine()
const turns = wholeNumber("turns", cli.option("turns", "10"), 1)
const gapMillis = wholeNumber("gap", cli.option("gap", "1100"), 0)
const wordsPerTurn = wholeNumber("words", cli.option("words", "12"), 1)
const replyTokens = wholeNumber("reply", cli.option("reply", "32"), 1)
// Even, so that each server is asked first on the last turn as often as the other.
const runs = wholeNumber("runs", cli.option("runs", "6"), 1)
const threads = cli.option("threads", "1")
const contextSize = cli.option("ctx", "")
const fallbackContext = cli.option("fallback-ctx", "8192")
const toolsOption = cli.flag("no-tools") ? "off" : cli.option("tools", "both")
const toolbelts: ReadonlyArray<boolean> = toolsOption === "on" ? [true] : toolsOption === "off" ? [false] : [true, false]
const models = cli.positional.length > 0
  ? cli.positional.map((file) => ({ name: path.basename(file), path: file }))
  : testModels

const projectRoot = fileURLToPath(new URL("../", import.meta.url))
const WORDS = ("the little dog ran to the park and found a red ball under the big tree then a girl named " +
  "lily came by with her mom they played together all day and the sun was warm and bright so everyone " +
  "was happy until it started to rain and they went home to eat soup and bread").split(" ")

/** The user's turn `turn` (0-based): a sentence of `--words` words, different each turn. */
const userTurn = (turn: number): string =>
  `Turn ${turn + 1}: ${Array.from({ length: wordsPerTurn }, (_, i) => WORDS[(turn * 7 + i) % WORDS.length]).join(" ")}.`

// ---------- the server ----------

interface Served {
  readonly url: string
  readonly child: ChildProcess
}

const banner = /^easyai serve · (http:\/\/127\.0\.0\.1:\d+)$/

/** `easyai serve --model <file> --port 0 --threads <n> [--ctx <n>] [--no-tools]`, once its banner names its URL. */
const startServe = (modelPath: string, tools: boolean, context: string) =>
  Effect.acquireRelease(
    Effect.async<Served, Error>((resume) => {
      const home = mkdtempSync(path.join(tmpdir(), "easyai-bench-home-"))
      const args = [
        ...["--import", "tsx", "src/programs/cli/main.ts", "serve", "--model", modelPath, "--port", "0", "--threads", threads],
        ...(context === "" ? [] : ["--ctx", context]),
        ...(tools ? [] : ["--no-tools"])
      ]
      const child = spawn(process.execPath, args, {
        cwd: projectRoot,
        env: { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, ".config") },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let stderr = ""
      child.stderr?.on("data", (bytes: Buffer) => {
        stderr = (stderr + bytes.toString()).slice(-4000)
      })
      const lines = createInterface({ input: child.stdout! })
      let found = false
      lines.on("line", (line) => {
        const url = banner.exec(line)?.[1]
        if (url === undefined || found) return
        found = true
        resume(Effect.succeed({ url, child }))
      })
      child.once("exit", (code) => {
        rmSync(home, { recursive: true, force: true })
        if (!found) resume(Effect.fail(new Error(`easyai serve exited (${code}) before its banner: ${stderr}`)))
      })
    }),
    ({ child }) =>
      Effect.async<void>((resume) => {
        if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
        child.once("exit", () => resume(Effect.void))
        child.kill("SIGTERM")
      })
  )

// ---------- one turn ----------

interface Message {
  readonly role: "user" | "assistant"
  readonly content: string
}

interface Turn {
  readonly turn: number
  readonly ttftMs: number
  readonly totalMs: number
  readonly cachedTokens: number
  readonly evaluatedTokens: number
  /** cache_n ÷ (cache_n + prompt_n); NaN when the server sent no timings. */
  readonly cachedShare: number
  /** Tokens generated (`predicted_n`): with the prompt, what this turn leaves in the KV cache for the next. */
  readonly predictedTokens: number
  readonly reply: string
  readonly error?: string
}

/** One streamed request; the reply's text and the figures the server reported. */
const sendTurn = (url: string, messages: ReadonlyArray<Message>, inject: boolean, turn: number) =>
  Effect.tryPromise({
    try: async (signal): Promise<Turn> => {
      const start = performance.now()
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        signal,
        headers: { "content-type": "application/json", ...(inject ? {} : { "x-easyai-inject": "off" }) },
        body: JSON.stringify({ messages, stream: true, max_tokens: replyTokens, temperature: 0, top_k: 1 })
      })
      if (!response.ok || response.body === null) {
        const text = await response.text()
        const end = performance.now() - start
        return { turn, ttftMs: end, totalMs: end, cachedTokens: 0, evaluatedTokens: 0, cachedShare: Number.NaN, predictedTokens: 0, reply: "", error: `HTTP ${response.status}: ${text.slice(0, 300)}` }
      }
      let first: number | undefined
      let reply = ""
      let timings: unknown
      let error: string | undefined
      let buffer = ""
      const decoder = new TextDecoder()
      for await (const bytes of response.body) {
        buffer += decoder.decode(bytes, { stream: true })
        let end = buffer.indexOf("\n\n")
        while (end >= 0) {
          for (const line of buffer.slice(0, end).split("\n")) {
            if (!line.startsWith("data: ") || line === "data: [DONE]") continue
            const chunk: unknown = JSON.parse(line.slice(6))
            if (field(chunk, "error") !== undefined) error = JSON.stringify(field(chunk, "error"))
            const delta = field(field(field(chunk, "choices"), "0"), "delta")
            const content = field(delta, "content")
            const reasoning = field(delta, "reasoning_content")
            if ((typeof content === "string" && content !== "") || (typeof reasoning === "string" && reasoning !== "")) {
              first ??= performance.now()
            }
            if (typeof content === "string") reply += content
            timings = field(chunk, "timings") ?? timings
          }
          buffer = buffer.slice(end + 2)
          end = buffer.indexOf("\n\n")
        }
      }
      const endTime = performance.now()
      const cached = field(timings, "cache_n")
      const evaluated = field(timings, "prompt_n")
      const predicted = field(timings, "predicted_n")
      const cachedTokens = typeof cached === "number" ? cached : 0
      const evaluatedTokens = typeof evaluated === "number" ? evaluated : 0
      return {
        turn,
        ttftMs: (first ?? endTime) - start,
        totalMs: endTime - start,
        cachedTokens,
        evaluatedTokens,
        cachedShare: timings === undefined ? Number.NaN : cachedTokens / Math.max(1, cachedTokens + evaluatedTokens),
        predictedTokens: typeof predicted === "number" ? predicted : 0,
        reply,
        ...(error === undefined ? {} : { error })
      }
    },
    catch: (cause) => new Error(`turn ${turn + 1} failed: ${cause instanceof Error ? cause.message : String(cause)}`)
  })

// ---------- a conversation, side by side ----------

/** The raw anchor's times to first token for a turn, one per server (see `kvReplay.ts`). */
interface AnchorTurn {
  readonly oursMs: number
  readonly baselineMs: number
}

/** One turn on both servers; `baseline` is absent when the default server refused the turn. */
interface Pair {
  readonly ours: Turn
  readonly baseline?: Turn
  readonly anchor?: AnchorTurn
}

/** The context size a server runs with, from its `GET /props`. */
const servedContextSize = (url: string) =>
  Effect.tryPromise({
    try: async () => {
      const size = field(await (await fetch(`${url}/props`)).json(), "n_ctx")
      if (typeof size !== "number") throw new Error("no n_ctx in /props")
      return size
    },
    catch: (cause) => new Error(`GET /props failed: ${cause instanceof Error ? cause.message : String(cause)}`)
  })

/** A replay of one server's turns on a context of its own, as large as the server's. */
const startReplay = (model: LlamaModel, contextSize: number) =>
  Effect.acquireRelease(
    Effect.promise(() => model.createContext({ contextSize, threads: Number(threads), flashAttention: false })),
    (context) => Effect.promise(() => context.dispose())
  ).pipe(Effect.map((context) => kvReplay(model, context.getSequence(), WORDS.join(" "), contextSize)))

/**
 * Holds the conversation once, on two fresh servers side by side, each
 * turn replayed on the raw anchor too. Stops after `turns` turns, or at
 * the first turn either server refuses.
 */
const converse = (model: LlamaModel, modelPath: string, tools: boolean, context: string, run: number) =>
  Effect.scoped(Effect.gen(function*() {
    const ours = yield* startServe(modelPath, tools, context)
    const baseline = yield* startServe(modelPath, tools, context)
    const contextSize = yield* servedContextSize(ours.url)
    const replays = { ours: yield* startReplay(model, contextSize), baseline: yield* startReplay(model, contextSize) }
    const replay = (on: KvReplay, turn: Turn) => Effect.promise(() => on.turn(turn))
    const history: Array<Message> = []
    const pairs: Array<Pair> = []
    for (let turn = 0; turn < turns; turn++) {
      // Paced like a person: the next message comes at least `gap` after the reply.
      if (turn > 0) yield* Effect.sleep(gapMillis)
      history.push({ role: "user", content: userTurn(turn) })
      const baselineFirst = (turn + run) % 2 === 1
      const early = baselineFirst ? yield* sendTurn(baseline.url, history, false, turn) : undefined
      const mine = yield* sendTurn(ours.url, history, true, turn)
      if (mine.error !== undefined) {
        pairs.push({ ours: mine })
        log(`  turn ${turn + 1}: refused: ${mine.error}`)
        break
      }
      const theirs = early ?? (yield* sendTurn(baseline.url, history, false, turn))
      // The same KV work on raw node-llama-cpp, in the order the servers were asked.
      const served = { ours: mine, baseline: theirs }
      const anchor = { oursMs: Number.NaN, baselineMs: Number.NaN }
      for (const side of baselineFirst ? ["baseline", "ours"] as const : ["ours", "baseline"] as const) {
        anchor[`${side}Ms`] = yield* replay(replays[side], served[side])
      }
      pairs.push({ ours: mine, baseline: theirs, anchor })
      log(
        `  turn ${turn + 1}${baselineFirst ? " (inject off first)" : ""}: TTFT ${round2(mine.ttftMs)} ms ÷ ${round2(theirs.ttftMs)} ms, ` +
          `cached ${mine.cachedTokens}/${mine.cachedTokens + mine.evaluatedTokens} (${round2(mine.cachedShare * 100)}%) ` +
          `vs ${theirs.cachedTokens}/${theirs.cachedTokens + theirs.evaluatedTokens}; raw ${round2(anchor.oursMs)} ms ÷ ${round2(anchor.baselineMs)} ms` +
          (theirs.error === undefined ? "" : `, baseline refused: ${theirs.error}`)
      )
      if (theirs.error !== undefined) break
      history.push({ role: "assistant", content: mine.reply })
    }
    return pairs
  }))

/**
 * Of what the previous turn left in the KV cache (its prompt and its
 * answer), the share this turn reused: 1 when nothing that could come
 * from the cache was evaluated again. Unlike the cached share of the
 * prompt, it does not count the new user message, which no cache holds.
 */
const reusedShare = (previous: Turn, turn: Turn): number =>
  Math.min(1, turn.cachedTokens / Math.max(1, previous.cachedTokens + previous.evaluatedTokens + previous.predictedTokens))

/** The turns both servers answered. */
const answered = (pairs: ReadonlyArray<Pair>) =>
  pairs.flatMap((pair) =>
    pair.ours.error === undefined && pair.baseline !== undefined && pair.baseline.error === undefined && pair.anchor !== undefined
      ? [{ ours: pair.ours, baseline: pair.baseline, anchor: pair.anchor }]
      : []
  )

const refusal = (pairs: ReadonlyArray<Pair>): string | undefined => {
  for (const { baseline, ours } of pairs) {
    const error = ours.error ?? baseline?.error
    if (error !== undefined) return `turn ${ours.turn + 1}: ${error}`
  }
  return undefined
}

/** A context overflow on the first turn: the model's default context cannot hold the prompt. */
const overflowedAtOnce = (pairs: ReadonlyArray<Pair>) =>
  pairs.length === 1 && pairs[0]?.ours.error?.includes("context_length_exceeded") === true

// ---------- the run ----------

const program = Effect.gen(function*() {
  log(
    `turns ${turns}, gap ${gapMillis} ms, ${wordsPerTurn} words a turn, reply ≤ ${replyTokens} tokens, ${runs} runs, ` +
      `threads ${threads}, ctx ${contextSize === "" ? "default" : contextSize}, models ${models.map((m) => m.name).join(", ")}`
  )
  const results: Array<Record<string, unknown>> = []
  const table: Array<string> = []
  const llama: Llama = yield* Effect.promise(() => getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error }))
  for (const model of models) {
    // The raw anchor's copy of the model, loaded once for every run on it.
    const rawModel = yield* Effect.promise(() => llama.loadModel({ modelPath: model.path }))
    for (const tools of toolbelts) {
      const label = `${model.name}, ${tools ? "default tools" : "--no-tools"}`
      let context = contextSize
      let note = ""
      const held: Array<ReadonlyArray<Pair>> = []
      for (let run = 0; run < runs; run++) {
        log(`${label}, run ${run + 1}${context === "" ? "" : `, --ctx ${context}`}`)
        let pairs = yield* converse(rawModel, model.path, tools, context, run)
        if (run === 0 && context === "" && overflowedAtOnce(pairs)) {
          note = `the default context refused turn 1 (${pairs[0]?.ours.error?.slice(0, 160)}); held with --ctx ${fallbackContext}`
          log(`${label}: ${note}`)
          context = fallbackContext
          pairs = yield* converse(rawModel, model.path, tools, context, run)
        }
        held.push(pairs)
      }
      // The last turn every run answered on both servers, and the medians over the runs.
      const answeredRuns = held.map(answered)
      const lastTurn = Math.min(...answeredRuns.map((pairs) => pairs.length))
      const at = (turn: number) => answeredRuns.map((pairs) => pairs[turn]).flatMap((pair) => (pair === undefined ? [] : [pair]))
      const perTurn = Array.from({ length: lastTurn }, (_, turn) => {
        const pairs = at(turn)
        const before = at(turn - 1)
        const ours = median(pairs.map((pair) => pair.ours.ttftMs))
        const baseline = median(pairs.map((pair) => pair.baseline.ttftMs))
        const anchorOurs = median(pairs.map((pair) => pair.anchor.oursMs))
        const anchorBaseline = median(pairs.map((pair) => pair.anchor.baselineMs))
        return {
          turn: turn + 1,
          ttftMs: round2(ours),
          baselineTtftMs: round2(baseline),
          ttftRatio: round2(ours / baseline),
          anchorTtftMs: round2(anchorOurs),
          anchorBaselineTtftMs: round2(anchorBaseline),
          anchorTtftRatio: round2(anchorOurs / anchorBaseline),
          cachedShare: round2(Math.min(...pairs.map((pair) => pair.ours.cachedShare))),
          baselineCachedShare: round2(Math.min(...pairs.map((pair) => pair.baseline.cachedShare))),
          // The lowest over the runs of the share of the previous turn's tokens reused (none before turn 2).
          reusedShare: turn === 0 ? Number.NaN : round2(Math.min(...pairs.map((pair, run) => reusedShare(before[run]!.ours, pair.ours)))),
          baselineReusedShare: turn === 0
            ? Number.NaN
            : round2(Math.min(...pairs.map((pair, run) => reusedShare(before[run]!.baseline, pair.baseline)))),
          promptTokens: pairs[0] === undefined ? 0 : pairs[0].ours.cachedTokens + pairs[0].ours.evaluatedTokens,
          evaluatedTokens: pairs[0]?.ours.evaluatedTokens ?? 0,
          baselineEvaluatedTokens: pairs[0]?.baseline.evaluatedTokens ?? 0
        }
      })
      const last = perTurn.at(-1)
      const lowestFromTurn2 = (shares: ReadonlyArray<number>) => (shares.length === 0 ? Number.NaN : Math.min(...shares))
      const minShare = lowestFromTurn2(perTurn.slice(1).map((turn) => turn.cachedShare))
      // The anchor's own figure: a new message that is a large share of a short prompt keeps both below 1.
      const minBaselineShare = lowestFromTurn2(perTurn.slice(1).map((turn) => turn.baselineCachedShare))
      const minReused = lastTurn < 2 ? Number.NaN : Math.min(...perTurn.slice(1).map((turn) => turn.reusedShare))
      const minBaselineReused = lastTurn < 2 ? Number.NaN : Math.min(...perTurn.slice(1).map((turn) => turn.baselineReusedShare))
      // Every turn from 2 on, every run: one turn's ratio is at the mercy of the machine's other work.
      const laterRatios = (ratio: (pair: ReturnType<typeof answered>[number]) => number) =>
        round2(median(answeredRuns.flatMap((pairs) => pairs.slice(1, lastTurn).map(ratio))))
      const medianLaterRatio = laterRatios((pair) => pair.ours.ttftMs / pair.baseline.ttftMs)
      const anchorMedianLaterRatio = laterRatios((pair) => pair.anchor.oursMs / pair.anchor.baselineMs)
      const refused = held.map(refusal).find((error) => error !== undefined)
      log(`${label}: turn ${lastTurn} TTFT default ÷ inject off ${last?.ttftRatio ?? Number.NaN} (raw anchor ${last?.anchorTtftRatio ?? Number.NaN}); lowest cached share from turn 2 ${minShare} (inject off ${minBaselineShare}), lowest reuse of the previous turn ${minReused} (inject off ${minBaselineReused})`)
      table.push(
        `${model.name} | ${tools ? "default" : "none"} | ${context === "" ? "default" : context} | ${lastTurn} | ` +
          `${last?.ttftMs ?? Number.NaN} | ${last?.baselineTtftMs ?? Number.NaN} | ${last?.ttftRatio ?? Number.NaN} | ${medianLaterRatio} | ` +
          `${last?.anchorTtftRatio ?? Number.NaN} | ${anchorMedianLaterRatio} | ` +
          `${minShare} | ${minBaselineShare} | ${minReused} | ${minBaselineReused} | ${last === undefined ? "-" : `${last.evaluatedTokens}/${last.baselineEvaluatedTokens}`} | ` +
          `${refused === undefined ? "-" : refused.slice(0, 90)}`
      )
      results.push({
        model: model.name,
        tools,
        contextSize: context === "" ? "default" : Number(context),
        ...(note === "" ? {} : { note }),
        lastTurn,
        lastTurnTtftRatio: last?.ttftRatio ?? Number.NaN,
        medianTtftRatioFromTurn2: medianLaterRatio,
        anchorLastTurnTtftRatio: last?.anchorTtftRatio ?? Number.NaN,
        anchorMedianTtftRatioFromTurn2: anchorMedianLaterRatio,
        minCachedShareFromTurn2: minShare,
        baselineMinCachedShareFromTurn2: minBaselineShare,
        minReusedShareFromTurn2: minReused,
        baselineMinReusedShareFromTurn2: minBaselineReused,
        ...(refused === undefined ? {} : { refused }),
        turns: perTurn
      })
    }
    yield* Effect.promise(() => rawModel.dispose())
  }
  console.log("")
  console.log(
    "model | tools | ctx | last turn answered | its median TTFT default ms | inject off ms | default÷off | " +
      "median default÷off of turns 2+ | raw anchor default÷off, last turn | raw anchor, median of turns 2+ | " +
      "min cached share from turn 2 | inject off | min reuse of the previous turn | inject off | last turn evaluated default/off | refused"
  )
  for (const line of table) console.log(line)
  console.log(JSON.stringify({
    bench: "easyai-conversation",
    turns,
    gapMillis,
    wordsPerTurn,
    replyTokens,
    runs,
    threads: Number(threads),
    results
  }))
})

NodeRuntime.runMain(program)
