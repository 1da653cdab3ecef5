/**
 * The HTTP side of the server benchmarks, run in a process of its own so
 * that what a benchmark measures is the server's work, not the client's
 * sharing its main thread. The benchmark forks this file (`forkClient`) and
 * sends it jobs over the IPC channel; each job's answer comes back the same
 * way.
 *
 * Jobs: `stream` (concurrent streamed completions, time to first content
 * delta and completion tokens of each) and `load` (a fixed number of cheap
 * requests over a pool of connections: requests/second, p50, p99).
 */
import { fork } from "node:child_process"
import { fileURLToPath } from "node:url"
import { Agent, request as undiciRequest } from "undici"
import { field, percentile } from "./stats.js"

/** One streamed completion as the client saw it. */
export interface StreamRun {
  readonly ttftMs: number
  readonly totalMs: number
  readonly tokens: number
}

/** A fixed number of requests, as the client saw them. */
export interface LoadRun {
  readonly rps: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly failures: number
}

/** What the benchmark asks of the client. */
export type Job =
  | {
    readonly _tag: "stream"
    readonly url: string
    readonly headers: Record<string, string>
    /** One request body per concurrent caller. */
    readonly bodies: ReadonlyArray<string>
  }
  | {
    readonly _tag: "load"
    readonly url: string
    readonly method: "GET" | "POST"
    readonly headers: Record<string, string>
    /** The bodies of the requests, used in turn (none for a GET). */
    readonly bodies: ReadonlyArray<string>
    readonly total: number
    readonly workers: number
  }

/** The answer to a job. */
export type Answer =
  | { readonly _tag: "stream"; readonly runs: ReadonlyArray<StreamRun>; readonly wallMs: number }
  | { readonly _tag: "load"; readonly run: LoadRun }
  | { readonly _tag: "error"; readonly message: string }

// ---------- the client's side ----------

/** One streamed completion: time to the first content delta, tokens from the final `timings.predicted_n`. */
const streamCall = async (agent: Agent, url: string, headers: Record<string, string>, body: string): Promise<StreamRun> => {
  const start = performance.now()
  const response = await undiciRequest(url, { method: "POST", dispatcher: agent, headers, body })
  if (response.statusCode !== 200) throw new Error(`HTTP ${response.statusCode}: ${await response.body.text()}`)
  let first: number | undefined
  let completion = 0
  let buffer = ""
  response.body.setEncoding("utf8")
  const onData = (data: string) => {
    if (data === "[DONE]") return
    const chunk: unknown = JSON.parse(data)
    const error = field(chunk, "error")
    if (error !== undefined) throw new Error(`stream error: ${JSON.stringify(error)}`)
    const choice = field(field(chunk, "choices"), "0")
    const content = field(field(choice, "delta"), "content")
    if (typeof content === "string" && content !== "") first ??= performance.now()
    const predicted = field(field(chunk, "timings"), "predicted_n")
    if (typeof predicted === "number") completion = predicted
  }
  // undici's `request` rather than `fetch`: no WHATWG stream in between, so the client takes less of the CPU the server shares.
  for await (const text of response.body) {
    // setEncoding("utf8") makes every chunk a string, decoded across chunk boundaries.
    buffer += String(text)
    let end = buffer.indexOf("\n\n")
    while (end >= 0) {
      for (const line of buffer.slice(0, end).split("\n")) {
        if (line.startsWith("data: ")) onData(line.slice(6))
      }
      buffer = buffer.slice(end + 2)
      end = buffer.indexOf("\n\n")
    }
  }
  const endTime = performance.now()
  return { ttftMs: (first ?? endTime) - start, totalMs: endTime - start, tokens: completion }
}

/** `total` calls of `send` from `workers` concurrent loops; `send` answers whether the call succeeded. */
export const loadTest = async (total: number, workers: number, send: () => Promise<boolean>): Promise<LoadRun> => {
  const latencies: Array<number> = []
  let issued = 0
  let failures = 0
  const start = performance.now()
  const worker = async () => {
    while (issued < total) {
      issued++
      const sent = performance.now()
      const ok = await send().catch(() => false)
      latencies.push(performance.now() - sent)
      if (!ok) failures++
    }
  }
  await Promise.all(Array.from({ length: Math.min(workers, total) }, worker))
  const wall = performance.now() - start
  return { rps: total / (wall / 1000), p50Ms: percentile(latencies, 0.5), p99Ms: percentile(latencies, 0.99), failures }
}

const runJob = async (agent: Agent, job: Job): Promise<Answer> => {
  if (job._tag === "stream") {
    const start = performance.now()
    const runs = await Promise.all(job.bodies.map((body) => streamCall(agent, job.url, job.headers, body)))
    return { _tag: "stream", runs, wallMs: performance.now() - start }
  }
  let next = 0
  const run = await loadTest(job.total, job.workers, async () => {
    const body = job.bodies.length === 0 ? undefined : job.bodies[next++ % job.bodies.length]
    const response = await undiciRequest(job.url, {
      method: job.method,
      dispatcher: agent,
      headers: job.headers,
      ...(body === undefined ? {} : { body })
    })
    await response.body.text()
    return response.statusCode === 200
  })
  return { _tag: "load", run }
}

/** Serves jobs from the parent until it disconnects. */
const serveParent = (send: (answer: Answer) => void) => {
  // One pool for the client's life, sized for the widest job: its connections stay open between jobs, as a real client's do.
  const agent = new Agent({ connections: Number(process.env["BENCH_CONNECTIONS"] ?? "64") })
  // The IPC boundary: the parent sends only `Job`s (forkClient's `run`), so the message is read as one.
  process.on("message", (job: Job) => {
    runJob(agent, job).then(send, (error: unknown) =>
      send({ _tag: "error", message: error instanceof Error ? error.message : String(error) })
    )
  })
  process.on("disconnect", () => {
    void agent.close().finally(() => process.exit(0))
  })
}

// ---------- the benchmark's side ----------

/** A forked client: `run` sends one job and resolves with its answer; `close` ends the process. */
export interface Client {
  readonly run: (job: Job) => Promise<Answer>
  readonly close: () => Promise<void>
}

/** Starts the client process, its connection pool sized `connections`. */
export const forkClient = (connections: number): Client => {
  const child = fork(fileURLToPath(import.meta.url), ["--client"], {
    execArgv: ["--import", "tsx"],
    env: { ...process.env, BENCH_CONNECTIONS: String(connections) },
    stdio: ["ignore", "inherit", "inherit", "ipc"]
  })
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  let pending: ((answer: Answer) => void) | undefined
  // The IPC boundary: the child sends only `Answer`s (serveParent), so the message is read as one.
  child.on("message", (answer: Answer) => {
    const resolve = pending
    pending = undefined
    resolve?.(answer)
  })
  child.once("exit", (code) => pending?.({ _tag: "error", message: `the client exited with code ${code}` }))
  return {
    run: (job) =>
      new Promise<Answer>((resolve) => {
        // One job at a time: the benchmark waits for each answer before the next job.
        pending = resolve
        child.send(job)
      }),
    close: () => {
      if (child.connected) child.disconnect()
      return exited
    }
  }
}

if (process.argv.includes("--client") && process.send !== undefined) {
  const parent = process.send.bind(process)
  serveParent((answer) => parent(answer))
}
