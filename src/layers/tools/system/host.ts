/**
 * What the `system_*` tools read from the host: text files under `/proc`
 * (absent beyond Linux, so every read is optional) and the figures they
 * share, rendered for people.
 *
 * @module
 */
import { Effect, Option, Schema } from "effect"
import { readFile } from "node:fs/promises"

/** A file's text, or none when it cannot be read (no `/proc` on this system, a process gone). */
export const readText = (file: string): Effect.Effect<Option.Option<string>> =>
  Effect.tryPromise(() => readFile(file, "utf8")).pipe(Effect.option)

/** `key: value` lines (`/proc/meminfo`, `/proc/<pid>/status`) as a map of the value's first number. */
export const keyedNumbers = (text: string): ReadonlyMap<string, number> => {
  const fields = new Map<string, number>()
  for (const line of text.split("\n")) {
    const colon = line.indexOf(":")
    if (colon <= 0) continue
    const value = Number.parseInt(line.slice(colon + 1).trim(), 10)
    if (Number.isFinite(value)) fields.set(line.slice(0, colon).trim(), value)
  }
  return fields
}

/** A byte count for people, in binary units: "512 B", "1.5 KiB", "7.8 GiB". */
export const bytesText = (bytes: number): string => {
  const units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit += 1
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${units[unit]}`
}

/** A share as a percentage with one decimal, e.g. 12.5. */
export const percent = (part: number, whole: number): number => (whole > 0 ? Math.round((part / whole) * 1000) / 10 : 0)

/** How long to watch the CPU for a use figure, as both CPU tools take it. */
export const SampleParam = Schema.optional(
  Schema.Int.pipe(Schema.between(100, 5000)).annotations({
    description: "Optional. 100..5000, default 500: milliseconds over which CPU use is measured."
  })
)

/** The default sampling window, in milliseconds. */
export const defaultSampleMillis = 500
