/**
 * easyai's MCP server against the official SDK's, side by side in one run:
 * both serve one tool `echo({text})` over Streamable HTTP, each in its own
 * child process, and one load generator (this process) drives them in turn.
 *
 *   npx tsx bench/mcp.ts [--seconds=5] [--rounds=3] [--clients=1,100,1000] [--warmup=2]
 *
 * - easyai: `SessionStack` with only `echo` (no model), `McpServerApp.make({ sessions: true })`,
 *   `ServerLive.serve` — what `easyai mcp` runs.
 * - sdk: `McpServer` + `StreamableHTTPServerTransport` on `node:http`, stateless with JSON
 *   responses, a fresh server and transport per POST (the SDK's stateless example, as the anchor
 *   `../shared/bench/anchor-mcp.mjs serve-sdk` is built).
 * - load: N clients (raw JSON-RPC over undici `request`, one `Agent({ connections: N })` per
 *   run) all initialize first (keeping `Mcp-Session-Id` when one is issued), then each loops
 *   `tools/call echo` with its own text for `--seconds`; every answer's text is checked. Latency
 *   is per call, measured here (client-side queueing included).
 * - CPU: each server's utime+stime delta over the run ÷ wall time (from /proc), and this
 *   process's own (`process.cpuUsage`): a generator near 100% is the limit, not the server.
 *   Also the server's CPU milliseconds per call, which other load on a shared machine moves
 *   least (calls/s falls when the server gets less CPU; its cost per call does not).
 *
 * Figures are medians over the rounds after one warm-up per server; the servers alternate who
 * goes first per round; the ratio is the median of per-round easyai ÷ sdk ratios.
 *
 * Internal modes: `--serve-easyai` and `--serve-sdk` run one server and print
 * `{"listening": URL, "pid": PID}` as their first stdout line; they stop on SIGTERM/SIGINT and
 * when their stdin closes (the parent is gone), so no server outlives the run.
 *
 * Progress lines start with "# "; the last line is one JSON object.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import type { IncomingMessage, ServerResponse } from "node:http"
import { createServer } from "node:http"
import { cpus, loadavg } from "node:os"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { Agent, request } from "undici"
import { commandLine, wholeNumber } from "./commandLine.js"
import { field, log, median, percentile, round2, sum } from "./stats.js"

// ---------- options ----------
const { flag, option } = commandLine()
const seconds = Math.max(0.5, Number(option("seconds", "5")))
const rounds = wholeNumber("rounds", option("rounds", "3"), 1)
const warmupSeconds = Math.max(0, Number(option("warmup", "2")))
const clientCounts = option("clients", "1,100,1000").split(",").map((text) => wholeNumber("clients", text.trim(), 1))
  .filter((n) => Number.isFinite(n) && n >= 1)

// ---------- constants ----------
const PROTOCOL_VERSION = "2025-06-18"
const REQUEST_TIMEOUT_MS = 30_000
const WARMUP_CLIENTS = 10
const TARGET_CLIENTS = 100
const TARGET_RATIO = 1.5
/** Clock ticks per second of /proc/<pid>/stat (`getconf CLK_TCK`: 100 on Linux). */
const CLOCK_TICKS = 100

// ---------- helpers ----------
const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 300)
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
const loadAverage = () => loadavg().map(round2)

/** CPU seconds (user + system) a process has used so far, or NaN when /proc cannot tell. */
const processCpuSeconds = (pid: number): number => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    // Fields after "pid (comm) ": state is fields[0], so utime and stime (fields 14 and 15 of stat) are [11] and [12].
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS
  } catch {
    return Number.NaN
  }
}

/** Exits the server process when the parent goes away (its end of our stdin closes). */
const stopWhenOrphaned = (stop: () => void) => {
  process.stdin.on("end", stop)
  process.stdin.on("error", stop)
  process.stdin.resume()
}

// ---------- child: easyai's MCP server ----------
const serveEasyai = async () => {
  const { McpServerApp, ServerLive, SessionStack, Tool } = await import("../src/index.js")
  const NoChatModel = await import("../src/layers/model/NoChatModel.js")
  const { Schema } = await import("effect")
  const echo = Tool.make({
    name: "echo",
    description: "Echo the text back.\nRequired: text.",
    parameters: Schema.Struct({ text: Schema.String }),
    handler: ({ text }) => Effect.succeed(text)
  })
  const program = Effect.gen(function*() {
    const served = yield* McpServerApp.make({ sessions: true })
    const server = yield* ServerLive.serve(served, { host: "127.0.0.1", port: 0, graceSeconds: 1 })
    const address = server.address
    if (address._tag !== "TcpAddress") return yield* Effect.dieMessage("the server is not on a TCP socket")
    yield* Effect.sync(() =>
      console.log(JSON.stringify({ listening: `http://127.0.0.1:${address.port}/mcp`, pid: process.pid, server: "easyai" }))
    )
    return yield* Effect.never
  }).pipe(
    Effect.scoped,
    Effect.provide(SessionStack.layer({
      model: NoChatModel.layer("the MCP benchmark serves tools and runs no model"),
      session: { withDefaultTools: false, tools: [echo] }
    }))
  )
  // SIGTERM goes through runMain: the scope closes and the server drains.
  stopWhenOrphaned(() => process.kill(process.pid, "SIGTERM"))
  NodeRuntime.runMain(program)
}

// ---------- child: the official SDK's server, as the anchor runs it ----------
const serveSdk = async () => {
  const { McpServer } = await import("@modelcontextprotocol/sdk/server/mcp.js")
  const { StreamableHTTPServerTransport } = await import("@modelcontextprotocol/sdk/server/streamableHttp.js")
  const { z } = await import("zod")

  const newMcpServer = () => {
    const server = new McpServer({ name: "bench-sdk-echo", version: "1.0.0" })
    server.registerTool(
      "echo",
      { description: "Echo the text back.", inputSchema: { text: z.string() } },
      async ({ text }) => ({ content: [{ type: "text", text }] })
    )
    return server
  }
  const fail = (response: ServerResponse, status: number, code: number, message: string) => {
    if (response.headersSent) return
    response.writeHead(status, { "content-type": "application/json" })
    response.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }))
  }
  const readJson = async (incoming: IncomingMessage): Promise<unknown> => {
    const chunks: Array<Buffer> = []
    for await (const chunk of incoming) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)))
    const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"))
    return parsed
  }
  const handle = async (incoming: IncomingMessage, response: ServerResponse) => {
    if ((incoming.url ?? "/").split("?")[0] !== "/mcp") return fail(response, 404, -32000, "Not found")
    if (incoming.method !== "POST") return fail(response, 405, -32000, "Method not allowed.")
    let body: unknown
    try {
      body = await readJson(incoming)
    } catch {
      return fail(response, 400, -32700, "Parse error")
    }
    // Stateless transports serve one request each: a fresh server and transport per POST.
    const server = newMcpServer()
    // No `sessionIdGenerator` (the anchor's `undefined`; exactOptionalPropertyTypes refuses the explicit one): stateless.
    const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true })
    response.on("close", () => {
      void transport.close().catch(() => undefined)
      void server.close().catch(() => undefined)
    })
    try {
      await server.connect(transport)
      await transport.handleRequest(incoming, response, body)
    } catch (error) {
      console.error("sdk server: request failed:", errorText(error))
      fail(response, 500, -32603, "Internal server error")
    }
  }
  const node = createServer((incoming, response) => void handle(incoming, response))
  await new Promise<void>((resolve, reject) => {
    node.once("error", reject)
    node.listen(0, "127.0.0.1", resolve)
  })
  const address = node.address()
  if (address === null || typeof address === "string") throw new Error("the SDK server is not on a TCP socket")
  console.log(JSON.stringify({ listening: `http://127.0.0.1:${address.port}/mcp`, pid: process.pid, server: "sdk" }))
  const stop = () => {
    node.close(() => process.exit(0))
    node.closeAllConnections()
    setTimeout(() => process.exit(0), 2000).unref()
  }
  process.on("SIGTERM", stop)
  process.on("SIGINT", stop)
  stopWhenOrphaned(stop)
}

// ---------- parent: the servers as child processes ----------
type ServerName = "easyai" | "sdk"
interface Served {
  readonly name: ServerName
  readonly url: string
  readonly pid: number
  readonly child: ChildProcess
}
const live = new Set<ChildProcess>()
const isRunning = (child: ChildProcess) => child.exitCode === null && child.signalCode === null

/** Starts `bench/mcp.ts --serve-<name>` under tsx and waits for its `{"listening": URL}` line. */
const startServer = (name: ServerName): Promise<Served> =>
  new Promise<Served>((resolve, reject) => {
    const script = fileURLToPath(import.meta.url)
    const root = fileURLToPath(new URL("..", import.meta.url))
    const child = spawn(process.execPath, ["--import", "tsx", script, `--serve-${name}`], {
      cwd: root,
      stdio: ["pipe", "pipe", "inherit"]
    })
    live.add(child)
    let settled = false
    const timer = setTimeout(() => {
      if (settled) return
      settled = true
      void stopServer(child)
      reject(new Error(`the ${name} server did not report its URL within 60 s`))
    }, 60_000)
    child.once("exit", (code, signal) => {
      live.delete(child)
      if (settled) return
      settled = true
      clearTimeout(timer)
      reject(new Error(`the ${name} server exited before listening (code ${code}, signal ${signal})`))
    })
    child.once("error", (error) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      reject(error)
    })
    // Keep reading its stdout for its whole life (a full pipe would block it); later lines go to stderr.
    // `!`: stdio[1] is "pipe", so node always creates child.stdout.
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (settled) {
        process.stderr.write(`[${name}] ${line}\n`)
        return
      }
      let parsed: unknown
      try {
        parsed = JSON.parse(line)
      } catch {
        process.stderr.write(`[${name}] ${line}\n`)
        return
      }
      const url = field(parsed, "listening")
      if (typeof url !== "string" || child.pid === undefined) return
      settled = true
      clearTimeout(timer)
      resolve({ name, url, pid: child.pid, child })
    })
  })

/** SIGTERM, then up to 5 s for the exit, then SIGKILL. */
const stopServer = async (child: ChildProcess): Promise<"exited" | "killed"> => {
  if (!isRunning(child)) return "exited"
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  child.kill("SIGTERM")
  const outcome = await Promise.race([exited.then(() => "exited" as const), sleep(5000).then(() => "timeout" as const)])
  if (outcome === "exited") return "exited"
  child.kill("SIGKILL")
  await Promise.race([exited, sleep(2000)])
  return "killed"
}

/** The last resort on any exit path: no server outlives this process. */
process.on("exit", () => {
  for (const child of live) if (isRunning(child)) child.kill("SIGKILL")
})

const serverResource = (name: ServerName) =>
  Effect.acquireRelease(
    Effect.tryPromise({ try: () => startServer(name), catch: (error) => new Error(`starting ${name}: ${errorText(error)}`) }),
    (served) =>
      Effect.promise(() => stopServer(served.child)).pipe(
        // stderr: the JSON line stays the last line of stdout.
        Effect.flatMap((outcome) => Effect.sync(() => process.stderr.write(`# ${name} server (pid ${served.pid}) stopped: ${outcome}\n`)))
      )
  )

// ---------- parent: the load generator ----------
interface McpClient {
  readonly connect: () => Promise<void>
  /** One `tools/call echo`; throws on any failure or a wrong answer. */
  readonly call: () => Promise<void>
  readonly close: () => Promise<void>
}

/** The JSON-RPC message of an answer body: JSON, or the data line of an SSE stream carrying `id`. */
const answerOf = (contentType: string, text: string, id: number): unknown => {
  if (!contentType.includes("text/event-stream")) {
    const parsed: unknown = JSON.parse(text)
    return parsed
  }
  for (const line of text.split("\n")) {
    if (!line.startsWith("data:")) continue
    const message: unknown = JSON.parse(line.slice(5))
    if (field(message, "id") === id) return message
  }
  throw new Error("no answer in the SSE stream")
}
const headerText = (value: string | Array<string> | undefined): string | undefined =>
  Array.isArray(value) ? value[0] : value

/** A raw MCP client: JSON-RPC POSTs over `agent`, checking every echo. */
const rawClient = (url: string, agent: Agent, text: string): McpClient => {
  let nextId = 1
  let session: string | undefined
  let version: string | undefined
  const callParams = JSON.stringify({ name: "echo", arguments: { text } })
  const headers = (): Record<string, string> => ({
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    ...(version === undefined ? {} : { "mcp-protocol-version": version }),
    ...(session === undefined ? {} : { "mcp-session-id": session })
  })
  const post = async (body: string, method: "POST" | "DELETE" = "POST") => {
    const response = await request(url, {
      method,
      dispatcher: agent,
      headers: headers(),
      ...(method === "POST" ? { body } : {}),
      headersTimeout: REQUEST_TIMEOUT_MS,
      bodyTimeout: REQUEST_TIMEOUT_MS
    })
    const answer = await response.body.text()
    if (response.statusCode >= 300) throw new Error(`HTTP ${response.statusCode}: ${answer.slice(0, 200)}`)
    return { headers: response.headers, text: answer }
  }
  return {
    connect: async () => {
      const id = nextId++
      const init = await post(JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "initialize",
        params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "easyai-bench-mcp", version: "1.0.0" } }
      }))
      const message = answerOf(headerText(init.headers["content-type"]) ?? "", init.text, id)
      const error = field(message, "error")
      if (error !== undefined) throw new Error(`initialize: ${JSON.stringify(error)}`)
      const negotiated = field(field(message, "result"), "protocolVersion")
      version = typeof negotiated === "string" ? negotiated : PROTOCOL_VERSION
      session = headerText(init.headers["mcp-session-id"])
      await post(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))
    },
    call: async () => {
      const id = nextId++
      const answer = await post(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":${callParams}}`)
      const message = answerOf(headerText(answer.headers["content-type"]) ?? "", answer.text, id)
      const error = field(message, "error")
      if (error !== undefined) throw new Error(`JSON-RPC error: ${JSON.stringify(error).slice(0, 200)}`)
      const result = field(message, "result")
      if (field(result, "isError") === true) throw new Error(`tool error: ${JSON.stringify(result).slice(0, 200)}`)
      const echoed = field(field(field(result, "content"), "0"), "text")
      if (echoed !== text) throw new Error(`echo mismatch: ${JSON.stringify(message).slice(0, 200)}`)
    },
    close: async () => {
      // End the session politely (not timed); a stateless server has none to end.
      if (session !== undefined) await post("", "DELETE").catch(() => undefined)
    }
  }
}

interface Run {
  readonly server: ServerName
  readonly clients: number
  readonly connectMs: number
  readonly connectErrors: number
  readonly calls: number
  readonly callErrors: number
  readonly firstError: string | undefined
  readonly elapsedSec: number
  readonly callsPerSec: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly maxMs: number
  readonly serverCpuPct: number
  /** Server CPU time per completed call: the cost figure least moved by other load on the machine. */
  readonly serverCpuMsPerCall: number
  readonly generatorCpuPct: number
}

/** N clients connect, then loop `tools/call echo` for `duration` seconds. */
const runLoad = async (served: Served, clients: number, duration: number, tag: string): Promise<Run> => {
  const agent = new Agent({ connections: clients })
  try {
    const pool = Array.from({ length: clients }, (_, i) => rawClient(served.url, agent, `hello from ${tag} client ${i}`))
    const connectStart = performance.now()
    const connected = await Promise.allSettled(pool.map((client) => client.connect()))
    const connectMs = performance.now() - connectStart
    const ready = pool.filter((_, i) => connected[i]!.status === "fulfilled")
    const firstRejected = connected.find((outcome) => outcome.status === "rejected")
    let firstError = firstRejected === undefined ? undefined : `connect: ${errorText(firstRejected.reason)}`

    const latencies: Array<number> = []
    let callErrors = 0
    const serverCpu0 = processCpuSeconds(served.pid)
    const cpu0 = process.cpuUsage()
    const start = performance.now()
    const deadline = start + duration * 1000
    await Promise.all(ready.map(async (client) => {
      while (performance.now() < deadline) {
        const sent = performance.now()
        try {
          await client.call()
          latencies.push(performance.now() - sent)
        } catch (error) {
          callErrors++
          firstError ??= errorText(error)
          // A failing endpoint must not spin the loop.
          await sleep(10)
        }
      }
    }))
    const elapsedSec = (performance.now() - start) / 1000
    const cpu = process.cpuUsage(cpu0)
    const serverCpu1 = processCpuSeconds(served.pid)
    await Promise.allSettled(ready.map((client) => client.close()))

    latencies.sort((a, b) => a - b)
    return {
      server: served.name,
      clients,
      connectMs: round2(connectMs),
      connectErrors: clients - ready.length,
      calls: latencies.length,
      callErrors,
      firstError,
      elapsedSec: round2(elapsedSec),
      callsPerSec: round2(latencies.length / elapsedSec),
      p50Ms: round2(percentile(latencies, 0.5)),
      p99Ms: round2(percentile(latencies, 0.99)),
      maxMs: round2(latencies[latencies.length - 1] ?? Number.NaN),
      serverCpuPct: round2(((serverCpu1 - serverCpu0) / elapsedSec) * 100),
      serverCpuMsPerCall: Math.round(((serverCpu1 - serverCpu0) * 1000 / latencies.length) * 1000) / 1000,
      generatorCpuPct: round2(((cpu.user + cpu.system) / 1e6 / elapsedSec) * 100)
    }
  } finally {
    await Promise.race([agent.close(), sleep(5000)])
    if (!agent.destroyed) await agent.destroy().catch(() => undefined)
  }
}

const describe = (run: Run) =>
  `${run.server.padEnd(6)} x${run.clients}: ${run.callsPerSec} calls/s, p50 ${run.p50Ms} ms, p99 ${run.p99Ms} ms, ` +
  `max ${run.maxMs} ms, errors ${run.connectErrors + run.callErrors}` +
  ` · server CPU ${run.serverCpuPct}% (${run.serverCpuMsPerCall} ms/call) · generator CPU ${run.generatorCpuPct}% · connect ${run.connectMs} ms` +
  (run.firstError === undefined ? "" : ` · first error: ${run.firstError}`)

// ---------- parent: the run ----------
const pad = (value: string | number, width: number) => String(value).padStart(width)

const program = Effect.gen(function*() {
  if (clientCounts.length === 0) return yield* Effect.dieMessage("--clients lists no client count ≥ 1")
  const loadAtStart = loadAverage()
  log(
    `${cpus().length} cores, load average ${loadAtStart.join(" ")}; ${seconds} s per run, ${rounds} rounds, ` +
      `clients ${clientCounts.join(",")}, warm-up ${warmupSeconds} s × ${WARMUP_CLIENTS} clients`
  )
  const easyai = yield* serverResource("easyai")
  const sdk = yield* serverResource("sdk")
  log(`easyai ${easyai.url} (pid ${easyai.pid}), sdk ${sdk.url} (pid ${sdk.pid})`)

  const load = (served: Served, clients: number, duration: number, tag: string) =>
    Effect.promise(() => runLoad(served, clients, duration, tag))

  if (warmupSeconds > 0) {
    for (const served of [easyai, sdk]) {
      const run = yield* load(served, WARMUP_CLIENTS, warmupSeconds, "warm-up")
      log(`warm-up ${describe(run)}`)
    }
  }

  const runs: Array<Run & { readonly round: number }> = []
  for (let r = 0; r < rounds; r++) {
    log(`round ${r + 1}: load average ${loadAverage().join(" ")}`)
    for (const clients of clientCounts) {
      // Alternate who goes first, so drift on a shared machine favours neither.
      const order = r % 2 === 0 ? [easyai, sdk] : [sdk, easyai]
      for (const served of order) {
        const run = yield* load(served, clients, seconds, `round ${r + 1}`)
        runs.push({ ...run, round: r + 1 })
        log(`round ${r + 1} ${describe(run)}`)
        // Let the closed connections settle before the next run.
        yield* Effect.sleep("300 millis")
      }
    }
  }

  const rows = clientCounts.map((clients) => {
    const of = (name: ServerName) => runs.filter((run) => run.clients === clients && run.server === name)
    const mine = of("easyai")
    const theirs = of("sdk")
    const figures = (list: ReadonlyArray<Run>) => ({
      callsPerSec: round2(median(list.map((run) => run.callsPerSec))),
      p50Ms: round2(median(list.map((run) => run.p50Ms))),
      p99Ms: round2(median(list.map((run) => run.p99Ms))),
      errors: sum(list.map((run) => run.connectErrors + run.callErrors)),
      serverCpuPct: round2(median(list.map((run) => run.serverCpuPct))),
      serverCpuMsPerCall: Math.round(median(list.map((run) => run.serverCpuMsPerCall)) * 1000) / 1000,
      generatorCpuPct: round2(median(list.map((run) => run.generatorCpuPct))),
      firstError: list.find((run) => run.firstError !== undefined)?.firstError
    })
    return {
      clients,
      easyai: figures(mine),
      sdk: figures(theirs),
      // Paired: each round's easyai figure over the sdk figure measured next to it.
      ratio: round2(median(mine.map((run) => {
        const other = theirs.find((candidate) => candidate.round === run.round)
        return other === undefined ? Number.NaN : run.callsPerSec / other.callsPerSec
      })))
    }
  })

  // ----- tables -----
  console.log("")
  console.log(`MCP tools/call echo, raw JSON-RPC clients, ${seconds} s per run (medians of ${rounds})`)
  console.log("clients | easyai calls/s | sdk calls/s | ratio | easyai p50/p99 ms | sdk p50/p99 ms | errors easyai/sdk")
  for (const row of rows) {
    console.log(
      `${pad(row.clients, 7)} | ${pad(row.easyai.callsPerSec, 14)} | ${pad(row.sdk.callsPerSec, 11)} | ${pad(row.ratio, 5)} | ` +
        `${pad(`${row.easyai.p50Ms}/${row.easyai.p99Ms}`, 17)} | ${pad(`${row.sdk.p50Ms}/${row.sdk.p99Ms}`, 14)} | ` +
        `${row.easyai.errors}/${row.sdk.errors}`
    )
  }
  console.log("")
  console.log("CPU over the run, % of one core (medians)")
  console.log(
    "clients | easyai server | generator (easyai) | sdk server | generator (sdk) | server CPU ms/call easyai/sdk"
  )
  for (const row of rows) {
    console.log(
      `${pad(row.clients, 7)} | ${pad(row.easyai.serverCpuPct, 13)} | ${pad(row.easyai.generatorCpuPct, 18)} | ` +
        `${pad(row.sdk.serverCpuPct, 10)} | ${pad(row.sdk.generatorCpuPct, 15)} | ` +
        `${row.easyai.serverCpuMsPerCall}/${row.sdk.serverCpuMsPerCall}`
    )
  }
  for (const row of rows) {
    if (row.easyai.firstError !== undefined) log(`x${row.clients} easyai first error: ${row.easyai.firstError}`)
    if (row.sdk.firstError !== undefined) log(`x${row.clients} sdk first error: ${row.sdk.firstError}`)
  }
  console.log("")
  const target = rows.find((row) => row.clients === TARGET_CLIENTS)
  const verdict = target === undefined
    ? { clients: TARGET_CLIENTS, measured: false as const }
    : {
      clients: TARGET_CLIENTS,
      measured: true as const,
      ratio: target.ratio,
      ratioTarget: TARGET_RATIO,
      ratioMet: target.ratio >= TARGET_RATIO,
      easyaiP99Ms: target.easyai.p99Ms,
      sdkP99Ms: target.sdk.p99Ms,
      p99NoWorse: target.easyai.p99Ms <= target.sdk.p99Ms
    }
  log(
    verdict.measured
      ? `summary: at ${TARGET_CLIENTS} clients easyai ÷ sdk = ${verdict.ratio} (target ≥ ${TARGET_RATIO}: ` +
        `${verdict.ratioMet ? "met" : "NOT met"}); p99 easyai ${verdict.easyaiP99Ms} ms vs sdk ${verdict.sdkP99Ms} ms ` +
        `(no worse: ${verdict.p99NoWorse ? "yes" : "NO"})`
      : `summary: ${TARGET_CLIENTS} clients not in --clients; the ${TARGET_RATIO}× target was not measured`
  )
  console.log(JSON.stringify({
    bench: "easyai-mcp",
    seconds,
    rounds,
    warmupSeconds,
    clients: clientCounts,
    cores: cpus().length,
    loadAverageAtStart: loadAtStart,
    loadAverageAtEnd: loadAverage(),
    rows,
    target: verdict,
    runs
  }))
})

if (flag("serve-easyai")) await serveEasyai()
else if (flag("serve-sdk")) await serveSdk()
else NodeRuntime.runMain(Effect.scoped(program))
