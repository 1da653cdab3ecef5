/**
 * `system_processes`: the top processes by CPU or memory, `ps`-like, from
 * `/proc/<pid>/stat` sampled twice (CPU) and `/proc/<pid>/status` (resident
 * memory). Needs `/proc`: beyond Linux the tool says so. Command lines are
 * not read: they can hold secrets.
 *
 * @module
 */
import { Duration, Effect, Option, Schema } from "effect"
import * as os from "node:os"
import * as Tool from "../../../domain/Tool.js"
import { ToolResult } from "../../../domain/ToolCall.js"
import { processIds } from "../../sandbox/procfs.js"
import { bytesText, defaultSampleMillis, keyedNumbers, percent, readText, SampleParam } from "./host.js"

/** Clock ticks per second of `/proc/<pid>/stat` times (USER_HZ): 100 on every Linux architecture Node runs on. */
const ticksPerSecond = 100

const defaultLimit = 10
const maxLimit = 50

const description = `List the top processes by CPU or by memory, like ps/top: pid, parent pid, state, CPU use over a short
window, resident memory (bytes and share of RAM), threads and the program's name. Command lines are not shown.
Use it to answer "what is eating the CPU?", "which process uses the most memory?". Needs /proc (Linux).

Parameters:
  sort_by    Optional. "cpu" (default) or "memory".
  limit      Optional. 1..${maxLimit}, default ${defaultLimit}: how many processes to list.
  sample_ms  Optional. 100..5000, default ${defaultSampleMillis}: milliseconds over which CPU use is measured.

Output: "Top 10 of 612 processes by cpu over 500 ms:", then one line per process:
  PID     PPID    STATE  CPU%    MEM%   RSS         THREADS  NAME
  4121    1       S      87.5    3.2    1.0 GiB     24       node

Examples:
  {}
  {"sort_by": "memory", "limit": 5}

Errors: on a system without /proc the tool says it cannot list processes there.`

const ProcessRow = Schema.Struct({
  pid: Schema.Int,
  ppid: Schema.Int,
  name: Schema.String,
  state: Schema.String.annotations({ description: "R running, S sleeping, D disk wait, Z zombie, T stopped, I idle" }),
  cpuPercent: Schema.Number.annotations({ description: "Share of one core over the window; above 100 on several cores" }),
  memoryPercent: Schema.Number,
  rssBytes: Schema.Number,
  threads: Schema.Int
})
type ProcessRow = typeof ProcessRow.Type

const ProcessData = Schema.Struct({
  sortBy: Schema.Literal("cpu", "memory"),
  sampleMillis: Schema.Int,
  total: Schema.Int.annotations({ description: "Processes seen" }),
  processes: Schema.Array(ProcessRow)
})
type ProcessData = typeof ProcessData.Type

interface Stat {
  readonly name: string
  readonly state: string
  readonly ppid: number
  readonly ticks: number
  readonly threads: number
}

/**
 * One `/proc/<pid>/stat` line. The name sits in parentheses and may hold
 * spaces and ")", so the fields are counted from the last ")".
 */
const parseStat = (text: string): Stat | undefined => {
  const open = text.indexOf("(")
  const close = text.lastIndexOf(")")
  if (open < 0 || close < open) return undefined
  // After ")": state(3) ppid(4) … utime(14) stime(15) … num_threads(20); index 0 here is field 3.
  const fields = text.slice(close + 2).split(" ")
  const state = fields[0] ?? "?"
  const ppid = Number(fields[1])
  const ticks = Number(fields[11]) + Number(fields[12])
  const threads = Number(fields[17])
  if (!Number.isFinite(ppid) || !Number.isFinite(ticks)) return undefined
  return { name: text.slice(open + 1, close), state, ppid, ticks, threads: Number.isFinite(threads) ? threads : 0 }
}

const readStat = (pid: number) =>
  Effect.map(readText(`/proc/${pid}/stat`), Option.flatMap((text) => Option.fromNullable(parseStat(text))))

/** Every process's stat now, by pid; a process that exits meanwhile is skipped. */
const snapshot = (pids: ReadonlyArray<number>) =>
  Effect.map(
    Effect.forEach(pids, (pid) => Effect.map(readStat(pid), Option.map((stat) => [pid, stat] as const)), {
      concurrency: 32
    }),
    (entries) => new Map(entries.flatMap(Option.toArray))
  )

const rssOf = (pid: number) =>
  Effect.map(readText(`/proc/${pid}/status`), (status) =>
    Option.match(status, {
      onNone: () => 0,
      onSome: (text) => (keyedNumbers(text).get("VmRSS") ?? 0) * 1024
    }))

const read = (sortBy: "cpu" | "memory", limit: number, sampleMillis: number) =>
  Effect.gen(function*() {
    const before = yield* snapshot(processIds())
    yield* Effect.sleep(Duration.millis(sampleMillis))
    const after = yield* snapshot(processIds())
    const seconds = sampleMillis / 1000
    const total = os.totalmem()
    const rows = yield* Effect.forEach([...after], ([pid, stat]) =>
      Effect.map(rssOf(pid), (rss): ProcessRow => {
        const start = before.get(pid)?.ticks ?? stat.ticks
        return {
          pid,
          ppid: stat.ppid,
          name: stat.name,
          state: stat.state,
          cpuPercent: Math.round(((stat.ticks - start) / ticksPerSecond / seconds) * 1000) / 10,
          memoryPercent: percent(rss, total),
          rssBytes: rss,
          threads: stat.threads
        }
      }), { concurrency: 32 })
    const key = (row: ProcessRow) => (sortBy === "cpu" ? row.cpuPercent : row.rssBytes)
    const sorted = [...rows].sort((a, b) => key(b) - key(a) || b.rssBytes - a.rssBytes || a.pid - b.pid)
    return { sortBy, sampleMillis, total: rows.length, processes: sorted.slice(0, limit) } satisfies ProcessData
  })

const render = (data: ProcessData): string =>
  [
    `Top ${data.processes.length} of ${data.total} processes by ${data.sortBy} over ${data.sampleMillis} ms:`,
    `${"PID".padEnd(8)}${"PPID".padEnd(8)}${"STATE".padEnd(7)}${"CPU%".padEnd(8)}${"MEM%".padEnd(7)}${
      "RSS".padEnd(12)
    }${"THREADS".padEnd(9)}NAME`,
    ...data.processes.map((row) =>
      `${String(row.pid).padEnd(8)}${String(row.ppid).padEnd(8)}${row.state.padEnd(7)}${
        row.cpuPercent.toFixed(1).padEnd(8)
      }${row.memoryPercent.toFixed(1).padEnd(7)}${bytesText(row.rssBytes).padEnd(12)}${
        String(row.threads).padEnd(9)
      }${row.name}`
    )
  ].join("\n")

/** `system_processes`: the top processes by CPU or memory. */
export const systemProcesses: Tool.Tool = Tool.make({
  name: "system_processes",
  description,
  shortDescription: "Top processes by CPU or memory, like ps/top (sort_by=\"cpu\"|\"memory\", limit).",
  parameters: Schema.Struct({
    sort_by: Schema.optional(
      Schema.Literal("cpu", "memory").annotations({ description: `Optional. "cpu" (default) or "memory".` })
    ),
    limit: Schema.optional(
      Schema.Int.pipe(Schema.between(1, maxLimit)).annotations({
        description: `Optional. 1..${maxLimit}, default ${defaultLimit}: how many processes to list.`
      })
    ),
    sample_ms: SampleParam
  }),
  examples: [{}, { sort_by: "memory", limit: 5 }],
  annotations: { readOnly: true, openWorld: false },
  outputSchema: Tool.parametersJsonSchema(ProcessData),
  handler: ({ limit, sample_ms, sort_by }) =>
    Effect.gen(function*() {
      if (Option.isNone(yield* readText("/proc/self/stat"))) {
        return yield* Tool.fail(`this system (${os.platform()}) has no /proc, so processes cannot be listed here.`)
      }
      const data = yield* read(sort_by ?? "cpu", limit ?? defaultLimit, sample_ms ?? defaultSampleMillis)
      return ToolResult.data(data, render(data))
    })
})
