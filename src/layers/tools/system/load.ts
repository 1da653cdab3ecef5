/**
 * `system_load`: CPU load averages, the CPU model and core count, and each
 * core's use measured over a short window (`os.cpus()` sampled twice).
 * `/proc/loadavg` adds the running and total task counts on Linux.
 *
 * @module
 */
import { Duration, Effect, Option, Schema } from "effect"
import * as os from "node:os"
import * as Tool from "../../../domain/Tool.js"
import { ToolResult } from "../../../domain/ToolCall.js"
import { defaultSampleMillis, percent, readText, SampleParam } from "./host.js"

const description = `Report the CPU load: load averages (1, 5, 15 minutes), the CPU model and core count, the running and
total task counts (Linux), and each core's use in percent, measured over a short window.
Use it to answer "is the machine busy?", "which core is hot?", "is the load above the core count?".

Parameters:
  sample_ms  Optional. 100..5000, default ${defaultSampleMillis}: milliseconds over which per-core use is measured.

Output:
  CPU: 8 cores, AMD Ryzen 7 5800X
  Load average: 0.52 0.61 0.70 (1, 5, 15 min)
  Tasks: 2 running of 612
  Use over 500 ms: 12.5%
    cpu0  23.0%  3800 MHz
  Uptime: 3 d 4 h 12 min

Examples:
  {}
  {"sample_ms": 2000}`

const CoreUse = Schema.Struct({
  core: Schema.Int,
  usePercent: Schema.Number.annotations({ description: "Busy share of the window, 0..100" }),
  mhz: Schema.Number
})

const LoadData = Schema.Struct({
  cores: Schema.Int,
  model: Schema.String,
  loadAverage: Schema.Struct({ one: Schema.Number, five: Schema.Number, fifteen: Schema.Number }),
  tasks: Schema.NullOr(Schema.Struct({ running: Schema.Int, total: Schema.Int })).annotations({
    description: "From /proc/loadavg; null where the system has none"
  }),
  sampleMillis: Schema.Int,
  usePercent: Schema.Number.annotations({ description: "All cores together, 0..100" }),
  perCore: Schema.Array(CoreUse),
  uptimeSeconds: Schema.Int
})
type LoadData = typeof LoadData.Type

interface Times {
  readonly busy: number
  readonly total: number
}

const times = (cpu: os.CpuInfo): Times => {
  const { idle, irq, nice, sys, user } = cpu.times
  return { busy: user + nice + sys + irq, total: user + nice + sys + irq + idle }
}

/** Each core's busy share between two `os.cpus()` snapshots. */
const coreUse = (before: ReadonlyArray<os.CpuInfo>, after: ReadonlyArray<os.CpuInfo>) =>
  after.map((cpu, core) => {
    const start = before[core] === undefined ? { busy: 0, total: 0 } : times(before[core])
    const end = times(cpu)
    return { core, busy: end.busy - start.busy, total: end.total - start.total, mhz: cpu.speed }
  })

/** "2/612 …" of `/proc/loadavg`: running and total tasks. */
const tasksOf = (loadavg: string): LoadData["tasks"] => {
  const match = /^\S+\s+\S+\s+\S+\s+(\d+)\/(\d+)/.exec(loadavg)
  return match === null ? null : { running: Number(match[1]), total: Number(match[2]) }
}

const uptimeText = (seconds: number): string => {
  const days = Math.floor(seconds / 86_400)
  const hours = Math.floor((seconds % 86_400) / 3600)
  const minutes = Math.floor((seconds % 3600) / 60)
  return `${days > 0 ? `${days} d ` : ""}${hours} h ${minutes} min`
}

const render = (data: LoadData): string => {
  const { fifteen, five, one } = data.loadAverage
  return [
    `CPU: ${data.cores} cores, ${data.model}`,
    `Load average: ${one.toFixed(2)} ${five.toFixed(2)} ${fifteen.toFixed(2)} (1, 5, 15 min)`,
    ...(data.tasks === null ? [] : [`Tasks: ${data.tasks.running} running of ${data.tasks.total}`]),
    `Use over ${data.sampleMillis} ms: ${data.usePercent.toFixed(1)}%`,
    ...data.perCore.map((core) =>
      `  cpu${String(core.core).padEnd(3)} ${core.usePercent.toFixed(1).padStart(5)}%  ${core.mhz} MHz`
    ),
    `Uptime: ${uptimeText(data.uptimeSeconds)}`
  ].join("\n")
}

/** Measures the load: two CPU snapshots `sampleMillis` apart. */
const measure = (sampleMillis: number): Effect.Effect<LoadData> =>
  Effect.gen(function*() {
    const before = os.cpus()
    yield* Effect.sleep(Duration.millis(sampleMillis))
    const after = os.cpus()
    const cores = coreUse(before, after)
    const [one = 0, five = 0, fifteen = 0] = os.loadavg()
    const loadavg = yield* readText("/proc/loadavg")
    return {
      cores: after.length,
      model: after[0]?.model.trim() ?? "unknown",
      loadAverage: { one, five, fifteen },
      tasks: Option.match(loadavg, { onNone: () => null, onSome: tasksOf }),
      sampleMillis,
      usePercent: percent(
        cores.reduce((sum, core) => sum + core.busy, 0),
        cores.reduce((sum, core) => sum + core.total, 0)
      ),
      perCore: cores.map((core) => ({ core: core.core, usePercent: percent(core.busy, core.total), mhz: core.mhz })),
      uptimeSeconds: Math.floor(os.uptime())
    }
  })

/** `system_load`: load averages and per-core CPU use. */
export const systemLoad: Tool.Tool = Tool.make({
  name: "system_load",
  description,
  shortDescription: "CPU load: load averages, core count and model, per-core use over a short window.",
  parameters: Schema.Struct({ sample_ms: SampleParam }),
  examples: [{}],
  annotations: { readOnly: true, openWorld: false },
  outputSchema: Tool.parametersJsonSchema(LoadData),
  handler: ({ sample_ms }) =>
    Effect.map(measure(sample_ms ?? defaultSampleMillis), (data) => ToolResult.data(data, render(data)))
})
