/**
 * The HTTP server against the model it serves, side by side in one process
 * and one run: the same loaded model, the same prompts, system prompt and
 * greedy sampling, called directly (`ChatModel.stream`) and through
 * `POST /v1/chat/completions` on `ServerLive.layer`.
 *
 *   npx tsx bench/server.ts <model.gguf> [--threads=1] [--rounds=3] [--tokens=64]
 *                           [--health=2000] [--completions=300] [--fa=off|on|auto] [--parts=stream,load]
 *
 * Figures (medians over the rounds, after one warm-up; direct and server alternate who goes first):
 * - streaming: 1, 4 and 8 concurrent callers, each a greedy answer of at most
 *   `--tokens` tokens — aggregate tokens/second (completion tokens from the
 *   `Usage` event directly, from `timings.predicted_n` over HTTP) and the
 *   median time to first token (first `TextDelta` / first content delta) —
 *   directly, through the server, and through the floor: a bare `node:http`
 *   server streaming the same model's text as SSE with nothing else in
 *   between (`bareStreaming`), what any HTTP server over this model pays.
 * - load: 64 connections (an undici `Agent`) sending a fixed number of cheap
 *   requests — `GET /health` (next to a bare `node:http` server answering the
 *   same body) and non-streaming 1-token completions (next to 64 direct
 *   1-token `ChatModel.stream` callers): requests/second, p50 and p99 latency.
 *
 * The model is loaded once with 8 sequences and shared by both sides. The
 * HTTP client runs in a process of its own (`loadClient.ts`), so the server
 * figures are the server's work alone, as the direct figures are the
 * model's: the direct callers and the servers share this process.
 *
 * Progress lines start with "# "; the last line is one JSON object.
 */
import { HttpServer } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { Context, Effect, Either, Fiber, Layer, Stream } from "effect"
import { createServer, type RequestListener, type Server } from "node:http"
import {
  ChatModel,
  type ChatModelService,
  type ChatRequest,
  LocalChatModel,
  ServerLive,
  SystemMessage,
  UserMessage
} from "../src/index.js"
import { parseJson } from "../src/domain/json.js"
import { presets } from "../src/domain/Sampling.js"
import { anchorEngineConfig, benchArgs } from "./args.js"
import { wholeNumber } from "./commandLine.js"
import { type Answer, type Client, forkClient, type Job, type LoadRun, loadTest, type StreamRun } from "./loadClient.js"
import { field, log, median, round2, sum } from "./stats.js"

// ---------- options ----------
const parsed = benchArgs(
  "npx tsx bench/server.ts <model.gguf> [--threads=1] [--rounds=3] [--tokens=64] [--health=2000] [--completions=300] [--fa=off|on|auto] [--parts=stream,load]",
  3
)
const { flashAttention, modelPath, option, rounds, threads } = parsed
const maxTokens = wholeNumber("tokens", option("tokens", "64"), 1)
const healthRequests = wholeNumber("health", option("health", "2000"), 1)
const completionRequests = wholeNumber("completions", option("completions", "300"), 1)
/** The figures to measure (both by default), so one of them can be repeated alone. */
const parts = new Set(option("parts", "stream,load").split(","))

// ---------- constants ----------
const SEQUENCES = 8
/** Per sequence: node-llama-cpp 3.22 gives each sequence its own `contextSize` cells (the KV cache holds contextSize × sequences). */
const contextSize = 512
const batchSize = 512
const CONCURRENCY = [1, 4, 8] as const
const CONNECTIONS = 64
const SYSTEM_PROMPT = "You are a storyteller."
const PROMPTS = [
  "Once upon a time, there was a little girl named Lily. Tell me a story about her and her dog.",
  "Tom had a big red ball. Tell me what happened when he took it to the park.",
  "There was a small bird who could not fly. Tell me how she learned.",
  "Sue and Ben found a box in the garden. Tell me what was inside.",
  "A little cat lived in a big house. Tell me about her best friend.",
  "Max wanted to build a tall tower. Tell me what he used.",
  "The sun was hot and the children went to the lake. Tell me what they saw.",
  "Anna lost her blue hat on a windy day. Tell me how she found it."
]
const greedy = { temperature: 0, top_k: 1, top_p: 1, min_p: 0 }

// ---------- helpers ----------

// Every request gets its own number (same width on both sides), so neither side finds the other's prompt in the KV cache.
let requestCounter = 1000
const nextPrompt = (k: number) => `Request ${requestCounter++}. ${PROMPTS[k % PROMPTS.length]!}`

type Run = StreamRun
interface Burst {
  readonly tokPerSec: number
  readonly ttftMs: number
  readonly tokensPerRequest: number
}
const burst = (runs: ReadonlyArray<Run>, wallMs: number): Burst => ({
  tokPerSec: sum(runs.map((run) => run.tokens)) / (wallMs / 1000),
  ttftMs: median(runs.map((run) => run.ttftMs)),
  tokensPerRequest: sum(runs.map((run) => run.tokens)) / runs.length
})

// ---------- direct: ChatModel.stream ----------
const directRequest = (text: string, tokens: number): ChatRequest => ({
  messages: [new SystemMessage({ content: SYSTEM_PROMPT }), new UserMessage({ content: text })],
  tools: [],
  sampling: presets.deterministic,
  maxTokens: tokens
})

const directCall = (model: ChatModelService, text: string, tokens: number) =>
  Effect.gen(function*() {
    const start = performance.now()
    let first: number | undefined
    let completion = 0
    yield* Stream.runForEach(model.stream(directRequest(text, tokens)), (event) =>
      Effect.sync(() => {
        if (event._tag === "TextDelta") first ??= performance.now()
        if (event._tag === "Usage") completion = event.completionTokens
      }))
    const end = performance.now()
    return { ttftMs: (first ?? end) - start, totalMs: end - start, tokens: completion } satisfies Run
  })

// ---------- server: POST /v1/chat/completions, from the client process ----------
const chatHeaders = { "content-type": "application/json", "x-easyai-inject": "off" }
const chatBody = (text: string, tokens: number, stream: boolean) =>
  JSON.stringify({
    messages: [{ role: "system", content: SYSTEM_PROMPT }, { role: "user", content: text }],
    stream,
    max_tokens: tokens,
    ...greedy
  })

const summarizeLoad = (runs: ReadonlyArray<LoadRun>) => ({
  rps: round2(median(runs.map((run) => run.rps))),
  p50Ms: round2(median(runs.map((run) => run.p50Ms))),
  p99Ms: round2(median(runs.map((run) => run.p99Ms))),
  failures: sum(runs.map((run) => run.failures))
})

/** A `node:http` server on a free loopback port, closed with the scope. */
const bareServer = (handler: RequestListener) =>
  Effect.acquireRelease(
    Effect.async<Server>((resume) => {
      const node = createServer(handler)
      node.listen(0, "127.0.0.1", () => resume(Effect.succeed(node)))
    }),
    (node) =>
      Effect.async<void>((resume) => {
        node.closeAllConnections()
        node.close(() => resume(Effect.void))
      })
  )

/** Answers every request with `body`: the floor for `/health`. */
const fixedAnswer = (body: string): RequestListener => (_, response) => {
  response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
  response.end(body)
}

/**
 * Streams the model's answer to a chat request in the shape the client reads
 * (content deltas, then `timings.predicted_n`, then `[DONE]`) with nothing in
 * between: no routing, validation, agent, limits or telemetry. The floor for
 * streaming over HTTP: what any server pays to put the same model behind
 * SSE on a socket to another process.
 */
const bareStreaming = (model: ChatModelService): RequestListener => (request, response) => {
  let body = ""
  request.setEncoding("utf8")
  request.on("data", (piece: string) => (body += piece))
  request.on("end", () => {
    const parsed = Either.getOrUndefined(parseJson(body))
    const messages = field(parsed, "messages")
    const text = field(Array.isArray(messages) ? messages.at(-1) : undefined, "content")
    const tokens = field(parsed, "max_tokens")
    if (typeof text !== "string" || typeof tokens !== "number") {
      response.writeHead(400).end()
      return
    }
    response.writeHead(200, { "content-type": "text/event-stream" })
    const sse = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`
    let predicted = 0
    const answer = Stream.runForEach(model.stream(directRequest(text, tokens)), (event) =>
      Effect.sync(() => {
        if (event._tag === "TextDelta") response.write(sse({ choices: [{ index: 0, delta: { content: event.text } }] }))
        if (event._tag === "Usage") predicted = event.completionTokens
      }))
    const fiber = Effect.runFork(answer.pipe(
      Effect.ensuring(Effect.sync(() => response.end(`${sse({ choices: [], timings: { predicted_n: predicted } })}data: [DONE]\n\n`)))
    ))
    response.on("close", () => Effect.runFork(Fiber.interrupt(fiber)))
  })
}

/** Sends `job` to the client process; a failed job fails the run, since its figures would mean nothing. */
const ask = (client: Client, job: Job): Effect.Effect<Answer> =>
  Effect.flatMap(Effect.promise(() => client.run(job)), (answer) =>
    answer._tag === "error" ? Effect.dieMessage(`the client failed: ${answer.message}`) : Effect.succeed(answer))
const loadRun = (client: Client, job: Job): Effect.Effect<LoadRun> =>
  Effect.flatMap(ask(client, job), (answer) =>
    answer._tag === "load" ? Effect.succeed(answer.run) : Effect.dieMessage("the client answered another job"))
const emptyBurst: Burst = { tokPerSec: Number.NaN, ttftMs: Number.NaN, tokensPerRequest: Number.NaN }

// ---------- the run ----------
const pad = (value: string | number, width: number) => String(value).padStart(width)

const program = Effect.gen(function*() {
  log(
    `model ${modelPath}, threads ${threads}, flash attention ${String(flashAttention)}, rounds ${rounds}, ` +
      `max tokens ${maxTokens}, sequences ${SEQUENCES}, context ${contextSize} per sequence`
  )
  // One model for both sides: the server gets the same ChatModel service the direct calls use.
  const modelContext = yield* Layer.build(
    LocalChatModel.layerFrom(anchorEngineConfig(parsed, { contextSize, batchSize, sequences: SEQUENCES }))
  )
  const model = Context.get(modelContext, ChatModel)
  const serverContext = yield* Layer.build(ServerLive.layer({
    model: Layer.succeed(ChatModel, model),
    session: { withDefaultTools: false },
    // queueLimit: the load test keeps 64 requests in flight; with the default 16 most would get an immediate 503.
    server: { parallel: SEQUENCES, injectPreamble: false, queueLimit: CONNECTIONS },
    // One load generator opens CONNECTIONS connections from one address; the per-client cap stays on, above that
    // with room for sockets the client has replaced but whose close the server has not seen yet.
    listen: { port: 0, maxClientConnections: 2 * CONNECTIONS }
  }))
  const address = Context.get(serverContext, HttpServer.HttpServer).address
  if (address._tag !== "TcpAddress") return yield* Effect.dieMessage("the server is not on a TCP socket")
  const base = `http://127.0.0.1:${address.port}`
  // Added after the server, so it runs before the server's finalizer: no keep-alive connection holds the close.
  const client = yield* Effect.acquireRelease(Effect.sync(() => forkClient(CONNECTIONS)), (c) => Effect.promise(() => c.close()))
  log(`server on ${base}, client in process of its own`)

  // ----- streaming: direct vs server at 1, 4, 8 concurrent callers -----
  const directBurst = (n: number) =>
    Effect.gen(function*() {
      const texts = Array.from({ length: n }, (_, k) => nextPrompt(k))
      const start = performance.now()
      const runs = yield* Effect.forEach(texts, (text) => directCall(model, text, maxTokens), { concurrency: "unbounded" })
      return burst(runs, performance.now() - start)
    })
  const floorServer = yield* bareServer(bareStreaming(model))
  const floorAddress = floorServer.address()
  if (floorAddress === null || typeof floorAddress === "string") return yield* Effect.dieMessage("the floor server is not on a TCP socket")
  const httpBurst = (url: string, n: number) =>
    Effect.map(
      ask(client, {
        _tag: "stream",
        url,
        headers: chatHeaders,
        bodies: Array.from({ length: n }, (_, k) => chatBody(nextPrompt(k), maxTokens, true))
      }),
      (answer) => (answer._tag === "stream" ? burst(answer.runs, answer.wallMs) : emptyBurst)
    )
  const serverUrl = `${base}/v1/chat/completions`
  const floorUrl = `http://127.0.0.1:${floorAddress.port}/v1/chat/completions`
  const streaming = new Map<number, { direct: Array<Burst>; server: Array<Burst>; floor: Array<Burst> }>(
    CONCURRENCY.map((n) => [n, { direct: [], server: [], floor: [] }])
  )
  for (let r = parts.has("stream") ? -1 : rounds; r < rounds; r++) {
    for (const n of CONCURRENCY) {
      const contenders = [directBurst(n), httpBurst(serverUrl, n), httpBurst(floorUrl, n)]
      // Rotate who goes first, so drift on a shared machine favours none of them.
      const bursts: Array<Burst> = []
      for (const k of contenders.map((_, k) => (k + r + 1) % contenders.length)) bursts[k] = yield* contenders[k]!
      const [direct, server, floor] = [bursts[0]!, bursts[1]!, bursts[2]!]
      if (r >= 0) {
        const figures = streaming.get(n)!
        figures.direct.push(direct)
        figures.server.push(server)
        figures.floor.push(floor)
      }
      log(
        `${r < 0 ? "warm-up" : `round ${r + 1}`} x${n}: direct ${round2(direct.tokPerSec)} tok/s ttft ${round2(direct.ttftMs)} ms, ` +
          `server ${round2(server.tokPerSec)} tok/s ttft ${round2(server.ttftMs)} ms, ` +
          `floor ${round2(floor.tokPerSec)} tok/s ttft ${round2(floor.ttftMs)} ms`
      )
    }
  }
  // Paired: each round's figure over the one measured next to it.
  const pairedRatio = (bursts: ReadonlyArray<Burst>, baseline: ReadonlyArray<Burst>) =>
    round2(median(bursts.map((b, i) => b.tokPerSec / baseline[i]!.tokPerSec)))
  const streamRows = CONCURRENCY.map((n) => {
    const { direct, floor, server } = streaming.get(n)!
    return {
      concurrency: n,
      directTokPerSec: round2(median(direct.map((b) => b.tokPerSec))),
      serverTokPerSec: round2(median(server.map((b) => b.tokPerSec))),
      ratio: pairedRatio(server, direct),
      floorTokPerSec: round2(median(floor.map((b) => b.tokPerSec))),
      floorOverDirect: pairedRatio(floor, direct),
      serverOverFloor: pairedRatio(server, floor),
      directTtftMs: round2(median(direct.map((b) => b.ttftMs))),
      serverTtftMs: round2(median(server.map((b) => b.ttftMs))),
      floorTtftMs: round2(median(floor.map((b) => b.ttftMs))),
      ttftOverheadMs: round2(median(server.map((b, i) => b.ttftMs - direct[i]!.ttftMs))),
      directTokensPerRequest: round2(median(direct.map((b) => b.tokensPerRequest))),
      serverTokensPerRequest: round2(median(server.map((b) => b.tokensPerRequest)))
    }
  })

  // ----- load: cheap requests over 64 connections -----
  const healthBody = yield* Effect.promise(async () => (await fetch(`${base}/health`)).text())
  const bare = yield* bareServer(fixedAnswer(healthBody))
  const bareAddress = bare.address()
  if (bareAddress === null || typeof bareAddress === "string") return yield* Effect.dieMessage("the bare server is not on a TCP socket")
  const bareUrl = `http://127.0.0.1:${bareAddress.port}/health`
  const healthRuns: Array<LoadRun> = []
  const bareRuns: Array<LoadRun> = []
  const completionRuns: Array<LoadRun> = []
  const directOneRuns: Array<LoadRun> = []
  const directOne = () =>
    Effect.runPromise(directCall(model, nextPrompt(requestCounter), 1).pipe(Effect.as(true), Effect.orElseSucceed(() => false)))
  const getLoad = (url: string, total: number) =>
    loadRun(client, { _tag: "load", url, method: "GET", headers: {}, bodies: [], total, workers: CONNECTIONS })
  const serverLoad = (total: number) =>
    loadRun(client, {
      _tag: "load",
      url: `${base}/v1/chat/completions`,
      method: "POST",
      headers: chatHeaders,
      bodies: Array.from({ length: total }, () => chatBody(nextPrompt(requestCounter), 1, false)),
      total,
      workers: CONNECTIONS
    })
  const directLoad = (total: number) => Effect.promise(() => loadTest(total, CONNECTIONS, directOne))
  for (let r = parts.has("load") ? -1 : rounds; r < rounds; r++) {
    const warm = r < 0
    const health = warm ? Math.min(200, healthRequests) : healthRequests
    const completions = warm ? Math.min(CONNECTIONS, completionRequests) : completionRequests
    const baselineFirst = r % 2 === 0
    const h1 = yield* getLoad(baselineFirst ? bareUrl : `${base}/health`, health)
    const h2 = yield* getLoad(baselineFirst ? `${base}/health` : bareUrl, health)
    const [bareRun, healthRun] = baselineFirst ? [h1, h2] : [h2, h1]
    const c1 = yield* (baselineFirst ? directLoad(completions) : serverLoad(completions))
    const c2 = yield* (baselineFirst ? serverLoad(completions) : directLoad(completions))
    const [directRun, completionRun] = baselineFirst ? [c1, c2] : [c2, c1]
    if (!warm) {
      healthRuns.push(healthRun)
      bareRuns.push(bareRun)
      completionRuns.push(completionRun)
      directOneRuns.push(directRun)
    }
    log(
      `${warm ? "warm-up" : `round ${r + 1}`} load: /health ${round2(healthRun.rps)} req/s (bare ${round2(bareRun.rps)}), ` +
        `1-token completions ${round2(completionRun.rps)} req/s (direct ${round2(directRun.rps)})`
    )
  }
  const load = {
    health: summarizeLoad(healthRuns),
    bareHealth: summarizeLoad(bareRuns),
    completion: summarizeLoad(completionRuns),
    directCompletion: summarizeLoad(directOneRuns),
    healthOverBare: round2(median(healthRuns.map((run, i) => run.rps / bareRuns[i]!.rps))),
    completionOverDirect: round2(median(completionRuns.map((run, i) => run.rps / directOneRuns[i]!.rps)))
  }

  // ----- tables -----
  console.log("")
  console.log(`streaming, max_tokens ${maxTokens}, greedy (medians of ${rounds})`)
  console.log(
    "conc | direct tok/s | server tok/s | server÷direct | floor tok/s | floor÷direct | server÷floor | direct TTFT p50 ms | server TTFT p50 ms | floor TTFT p50 ms | TTFT overhead ms | tok/req direct/server"
  )
  for (const row of streamRows) {
    console.log(
      `${pad(row.concurrency, 4)} | ${pad(row.directTokPerSec, 12)} | ${pad(row.serverTokPerSec, 12)} | ${pad(row.ratio, 13)} | ` +
        `${pad(row.floorTokPerSec, 11)} | ${pad(row.floorOverDirect, 12)} | ${pad(row.serverOverFloor, 12)} | ` +
        `${pad(row.directTtftMs, 18)} | ${pad(row.serverTtftMs, 18)} | ${pad(row.floorTtftMs, 17)} | ${pad(row.ttftOverheadMs, 16)} | ` +
        `${row.directTokensPerRequest}/${row.serverTokensPerRequest}`
    )
  }
  console.log("")
  console.log(`load, ${CONNECTIONS} connections (medians of ${rounds})`)
  console.log("what                                   | requests |    req/s |  p50 ms |  p99 ms | failures")
  const loadRow = (what: string, count: number, figures: ReturnType<typeof summarizeLoad>) =>
    console.log(
      `${what.padEnd(38)} | ${pad(count, 8)} | ${pad(figures.rps, 8)} | ${pad(figures.p50Ms, 7)} | ${pad(figures.p99Ms, 7)} | ${figures.failures}`
    )
  loadRow("GET /health (easyai server)", healthRequests, load.health)
  loadRow("GET /health (bare node:http)", healthRequests, load.bareHealth)
  loadRow("1-token completion (server, HTTP)", completionRequests, load.completion)
  loadRow("1-token completion (direct ChatModel)", completionRequests, load.directCompletion)
  console.log("")
  log(
    `summary: server÷direct tok/s ${streamRows.map((row) => `x${row.concurrency} ${row.ratio}`).join(", ")}; ` +
      `floor÷direct ${streamRows.map((row) => `x${row.concurrency} ${row.floorOverDirect}`).join(", ")}; ` +
      `server÷floor ${streamRows.map((row) => `x${row.concurrency} ${row.serverOverFloor}`).join(", ")}; ` +
      `TTFT overhead ms ${streamRows.map((row) => `x${row.concurrency} ${row.ttftOverheadMs}`).join(", ")}; ` +
      `/health easyai÷bare ${load.healthOverBare}; 1-token completions server÷direct ${load.completionOverDirect}`
  )
  console.log(JSON.stringify({
    bench: "easyai-server",
    model: modelPath,
    threads,
    flashAttention,
    rounds,
    maxTokens,
    sequences: SEQUENCES,
    contextSizePerSequence: contextSize,
    streaming: streamRows,
    load
  }))
})

NodeRuntime.runMain(Effect.scoped(program))
