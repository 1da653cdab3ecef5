/**
 * A conversation as a person has it, through a real `easyai serve` with its
 * default settings: turns at least `--gap` ms apart (1.1 s by default), each
 * request carrying the whole history, streamed.
 *
 *   npm run bench:conversation -- [model.gguf …] [--turns=10] [--gap=1100] [--reply=32]
 *                                 [--threads=1] [--ctx=N] [--tools=both|on|off] [--no-tools]
 *
 * Without a model path it runs every test model (`test/support/models.ts`:
 * the generated tiny model and `../shared/models/*.gguf`). For each model
 * and each toolbelt (the default tools, and `--no-tools`):
 *
 * 1. the conversation with the default per-request preamble, on a fresh server;
 * 2. the same messages (the user turns and the replies of run 1) sent with
 *    `X-Easyai-Inject: off`, on another fresh server: the baseline.
 *
 * Per turn: the time to first token (the first content or reasoning delta,
 * else the end of the answer) and the share of the prompt that came from the
 * KV cache (`timings.cache_n` ÷ (`cache_n` + `prompt_n`), as the server
 * reports them). The summary gives the TTFT default ÷ baseline of the last
 * turn both answered (the last turn, unless the context filled up first).
 * `--threads` is passed to the server (1 by default, as the anchors), and
 * `--ctx` when given (the default tools' catalogue may not fit a small
 * model's default context); no other setting is, and no settings file is
 * read (HOME is a fresh temporary folder). A turn the server refuses ends
 * that conversation, and its error is reported.
 *
 * Progress lines start with "# "; the last line is one JSON object.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { testModels } from "../test/support/models.js"
import { commandLine } from "./args.js"
import { field, log, round2 } from "./stats.js"

// ---------- options ----------
const cli = commandLine()
const turns = Math.max(1, Number(cli.option("turns", "10")))
const gapMillis = Math.max(0, Number(cli.option("gap", "1100")))
const replyTokens = Math.max(1, Number(cli.option("reply", "32")))
const threads = cli.option("threads", "1")
const contextSize = cli.option("ctx", "")
const toolsOption = cli.flag("no-tools") ? "off" : cli.option("tools", "both")
const toolbelts: ReadonlyArray<boolean> = toolsOption === "on" ? [true] : toolsOption === "off" ? [false] : [true, false]
const models = cli.positional.length > 0
  ? cli.positional.map((file) => ({ name: path.basename(file), path: file }))
  : testModels

const projectRoot = fileURLToPath(new URL("../", import.meta.url))
const WORDS = ("the little dog ran to the park and found a red ball under the big tree then a girl named " +
  "lily came by with her mom they played together all day and the sun was warm and bright so everyone " +
  "was happy until it started to rain and they went home to eat soup and bread").split(" ")

/** The user's turn `turn` (0-based): a sentence of about forty words, different each turn. */
const userTurn = (turn: number): string =>
  `Turn ${turn + 1}: ${Array.from({ length: 40 }, (_, i) => WORDS[(turn * 7 + i) % WORDS.length]).join(" ")}.`

// ---------- the server ----------

interface Served {
  readonly url: string
  readonly child: ChildProcess
}

const banner = /^easyai serve · (http:\/\/127\.0\.0\.1:\d+)$/

/** `easyai serve --model <file> --port 0 --threads <n> [--no-tools]`, once its banner names its URL. */
const startServe = (modelPath: string, tools: boolean) =>
  Effect.acquireRelease(
    Effect.async<Served, Error>((resume) => {
      const home = mkdtempSync(path.join(tmpdir(), "easyai-bench-home-"))
      const args = [
        ...["--import", "tsx", "src/programs/cli/main.ts", "serve", "--model", modelPath, "--port", "0", "--threads", threads],
        ...(contextSize === "" ? [] : ["--ctx", contextSize]),
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
        return { turn, ttftMs: end, totalMs: end, cachedTokens: 0, evaluatedTokens: 0, cachedShare: Number.NaN, reply: "", error: `HTTP ${response.status}: ${text.slice(0, 300)}` }
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
      const cachedTokens = typeof cached === "number" ? cached : 0
      const evaluatedTokens = typeof evaluated === "number" ? evaluated : 0
      return {
        turn,
        ttftMs: (first ?? endTime) - start,
        totalMs: endTime - start,
        cachedTokens,
        evaluatedTokens,
        cachedShare: timings === undefined ? Number.NaN : cachedTokens / Math.max(1, cachedTokens + evaluatedTokens),
        reply,
        ...(error === undefined ? {} : { error })
      }
    },
    catch: (cause) => new Error(`turn ${turn + 1} failed: ${cause instanceof Error ? cause.message : String(cause)}`)
  })

// ---------- a conversation ----------

/**
 * Runs the turns on a fresh server. With `replies`, each turn's history
 * carries those replies (the same messages as the run that produced them);
 * without, the replies the server gives. Stops after `count` turns, or at
 * the first turn the server refuses.
 */
const converse = (modelPath: string, tools: boolean, inject: boolean, count: number, replies?: ReadonlyArray<string>) =>
  Effect.scoped(Effect.gen(function*() {
    const { url } = yield* startServe(modelPath, tools)
    const history: Array<Message> = []
    const done: Array<Turn> = []
    for (let turn = 0; turn < count; turn++) {
      // Paced like a person: the next message comes at least `gap` after the reply.
      if (turn > 0) yield* Effect.sleep(gapMillis)
      history.push({ role: "user", content: userTurn(turn) })
      const result = yield* sendTurn(url, history, inject, turn)
      done.push(result)
      log(
        `  ${inject ? "default" : "inject off"} turn ${turn + 1}: TTFT ${round2(result.ttftMs)} ms, ` +
          `cached ${result.cachedTokens}/${result.cachedTokens + result.evaluatedTokens} (${round2(result.cachedShare * 100)}%)` +
          (result.error === undefined ? "" : `, error ${result.error}`)
      )
      if (result.error !== undefined) break
      history.push({ role: "assistant", content: replies?.[turn] ?? result.reply })
    }
    return done
  }))

const row = (result: Turn) => ({
  turn: result.turn + 1,
  ttftMs: round2(result.ttftMs),
  totalMs: round2(result.totalMs),
  cachedTokens: result.cachedTokens,
  promptTokens: result.cachedTokens + result.evaluatedTokens,
  cachedShare: round2(result.cachedShare),
  ...(result.error === undefined ? {} : { error: result.error })
})

// ---------- the run ----------

const program = Effect.gen(function*() {
  log(`turns ${turns}, gap ${gapMillis} ms, reply ≤ ${replyTokens} tokens, threads ${threads}, ctx ${contextSize === "" ? "default" : contextSize}, models ${models.map((m) => m.name).join(", ")}`)
  const results: Array<{
    readonly model: string
    readonly tools: boolean
    /** The last turn both conversations answered (1-based; 0 when none). */
    readonly lastTurn: number
    readonly lastTurnTtftDefaultMs: number
    readonly lastTurnTtftOffMs: number
    readonly lastTurnTtftDefaultOverOff: number
    readonly minCachedShareFromTurn2: number
    readonly default: ReadonlyArray<ReturnType<typeof row>>
    readonly injectOff: ReadonlyArray<ReturnType<typeof row>>
  }> = []
  for (const model of models) {
    for (const tools of toolbelts) {
      log(`${model.name}, ${tools ? "default tools" : "--no-tools"}`)
      const ours = yield* converse(model.path, tools, true, turns)
      // The same messages, as far as the default conversation got: a refused turn has no reply to send on.
      const answeredOurs = ours.filter((turn) => turn.error === undefined)
      const baseline = answeredOurs.length === 0
        ? []
        : yield* converse(model.path, tools, false, answeredOurs.length, answeredOurs.map((turn) => turn.reply))
      // A ratio only between two answered turns: a refusal's time says nothing about the cache.
      const answeredBase = baseline.filter((turn) => turn.error === undefined)
      const common = Math.min(answeredOurs.length, answeredBase.length)
      const lastOurs = answeredOurs[common - 1]
      const lastBase = answeredBase[common - 1]
      const lastOverBaseline = lastOurs !== undefined && lastBase !== undefined ? round2(lastOurs.ttftMs / lastBase.ttftMs) : Number.NaN
      const fromTurn2 = answeredOurs.slice(1).map((turn) => turn.cachedShare)
      const minShare = fromTurn2.length === 0 ? Number.NaN : round2(Math.min(...fromTurn2))
      log(
        `${model.name}, ${tools ? "default tools" : "--no-tools"}: turn ${common} TTFT default ÷ inject off ${lastOverBaseline}; ` +
          `lowest cached share from turn 2 ${minShare}`
      )
      results.push({
        model: model.name,
        tools,
        lastTurn: common,
        lastTurnTtftDefaultMs: round2(lastOurs?.ttftMs ?? Number.NaN),
        lastTurnTtftOffMs: round2(lastBase?.ttftMs ?? Number.NaN),
        lastTurnTtftDefaultOverOff: lastOverBaseline,
        minCachedShareFromTurn2: minShare,
        default: ours.map(row),
        injectOff: baseline.map(row)
      })
    }
  }
  console.log("")
  console.log("model | tools | last turn both answered | its TTFT default ms | its TTFT off ms | default÷off | min cached share from turn 2 | refused")
  for (const result of results) {
    const refused = [...result.default, ...result.injectOff].find((turn) => turn.error !== undefined)
    console.log(
      `${result.model} | ${result.tools ? "default" : "none"} | ${result.lastTurn} | ${result.lastTurnTtftDefaultMs} | ` +
        `${result.lastTurnTtftOffMs} | ${result.lastTurnTtftDefaultOverOff} | ${result.minCachedShareFromTurn2} | ` +
        `${refused === undefined ? "-" : `turn ${refused.turn}: ${refused.error?.slice(0, 90)}`}`
    )
  }
  console.log(JSON.stringify({
    bench: "easyai-conversation",
    turns,
    gapMillis,
    replyTokens,
    threads: Number(threads),
    contextSize: contextSize === "" ? "default" : Number(contextSize),
    results
  }))
})

NodeRuntime.runMain(program)
