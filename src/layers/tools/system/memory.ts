/**
 * `system_memory`: physical memory and swap. `os.totalmem`/`os.freemem`
 * everywhere; on Linux `/proc/meminfo` adds what is really available (free
 * plus reclaimable cache), buffers, cache and swap, and `/proc/swaps` the
 * swap devices.
 *
 * @module
 */
import { Effect, Option, Schema } from "effect"
import * as os from "node:os"
import * as Tool from "../../../domain/Tool.js"
import { ToolResult } from "../../../domain/ToolCall.js"
import { bytesText, keyedNumbers, percent, readText } from "./host.js"

const description = `Report memory and swap: total, used, available (free plus reclaimable cache), buffers and cache, swap
totals, and each swap device with its type, size, use and priority (Linux).
Use it to answer "is the machine short of memory?", "is it swapping?", "what swap is configured?".

Parameters: none.

Output:
  Memory: 7.6 GiB used of 31.2 GiB (24.4%), 23.6 GiB available, 1.2 GiB free
  Buffers: 412.0 MiB, cache: 18.9 GiB
  Swap: 0 B used of 8.0 GiB (0.0%)
    /dev/nvme0n1p3  partition  8.0 GiB  0 B used  priority -2

Example: {}`

const SwapDevice = Schema.Struct({
  device: Schema.String,
  type: Schema.String,
  sizeBytes: Schema.Number,
  usedBytes: Schema.Number,
  priority: Schema.Int
})

const MemoryData = Schema.Struct({
  totalBytes: Schema.Number,
  usedBytes: Schema.Number.annotations({ description: "Total minus available" }),
  availableBytes: Schema.Number,
  freeBytes: Schema.Number,
  usedPercent: Schema.Number,
  buffersBytes: Schema.NullOr(Schema.Number),
  cachedBytes: Schema.NullOr(Schema.Number),
  swap: Schema.NullOr(Schema.Struct({
    totalBytes: Schema.Number,
    usedBytes: Schema.Number,
    freeBytes: Schema.Number,
    usedPercent: Schema.Number
  })).annotations({ description: "null where the system does not say (no /proc/meminfo)" }),
  swapDevices: Schema.Array(SwapDevice)
})
type MemoryData = typeof MemoryData.Type

const kib = (fields: ReadonlyMap<string, number>, key: string): number | undefined => {
  const value = fields.get(key)
  return value === undefined ? undefined : value * 1024
}

/** `/proc/swaps`: a header line, then `Filename Type Size Used Priority`, sizes in KiB. */
const swapDevices = (text: string): MemoryData["swapDevices"] =>
  text.split("\n").slice(1).flatMap((line) => {
    const [device, type, size, used, priority] = line.trim().split(/\s+/)
    if (device === undefined || device === "" || type === undefined) return []
    return [{
      device: device.replaceAll("\\040", " "),
      type,
      sizeBytes: Number(size) * 1024,
      usedBytes: Number(used) * 1024,
      priority: Number.parseInt(priority ?? "0", 10)
    }]
  })

const read: Effect.Effect<MemoryData> = Effect.gen(function*() {
  const meminfo = Option.map(yield* readText("/proc/meminfo"), keyedNumbers)
  const fields = Option.getOrElse(meminfo, () => new Map<string, number>())
  const total = kib(fields, "MemTotal") ?? os.totalmem()
  const free = kib(fields, "MemFree") ?? os.freemem()
  const available = kib(fields, "MemAvailable") ?? os.freemem()
  const swapTotal = kib(fields, "SwapTotal")
  const swapFree = kib(fields, "SwapFree")
  const swaps = yield* readText("/proc/swaps")
  return {
    totalBytes: total,
    usedBytes: total - available,
    availableBytes: available,
    freeBytes: free,
    usedPercent: percent(total - available, total),
    buffersBytes: kib(fields, "Buffers") ?? null,
    cachedBytes: kib(fields, "Cached") ?? null,
    swap: swapTotal === undefined || swapFree === undefined ? null : {
      totalBytes: swapTotal,
      usedBytes: swapTotal - swapFree,
      freeBytes: swapFree,
      usedPercent: percent(swapTotal - swapFree, swapTotal)
    },
    swapDevices: Option.match(swaps, { onNone: () => [], onSome: swapDevices })
  }
})

const render = (data: MemoryData): string =>
  [
    `Memory: ${bytesText(data.usedBytes)} used of ${bytesText(data.totalBytes)} (${data.usedPercent.toFixed(1)}%), ${
      bytesText(data.availableBytes)
    } available, ${bytesText(data.freeBytes)} free`,
    ...(data.buffersBytes === null || data.cachedBytes === null
      ? []
      : [`Buffers: ${bytesText(data.buffersBytes)}, cache: ${bytesText(data.cachedBytes)}`]),
    data.swap === null
      ? "Swap: unknown on this system"
      : data.swap.totalBytes === 0
      ? "Swap: none configured"
      : `Swap: ${bytesText(data.swap.usedBytes)} used of ${bytesText(data.swap.totalBytes)} (${
        data.swap.usedPercent.toFixed(1)
      }%)`,
    ...data.swapDevices.map((device) =>
      `  ${device.device}  ${device.type}  ${bytesText(device.sizeBytes)}  ${
        bytesText(device.usedBytes)
      } used  priority ${device.priority}`
    )
  ].join("\n")

/** `system_memory`: memory and swap use. */
export const systemMemory: Tool.Tool = Tool.make({
  name: "system_memory",
  description,
  shortDescription: "Memory and swap: total, used, available, cache, swap devices.",
  annotations: { readOnly: true, openWorld: false },
  outputSchema: Tool.parametersJsonSchema(MemoryData),
  handler: () => Effect.map(read, (data) => ToolResult.data(data, render(data)))
})
