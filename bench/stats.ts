/**
 * The arithmetic and output helpers every benchmark uses.
 */

/** A progress line: `# …` (the last line of a run is JSON). */
export const log = (...parts: ReadonlyArray<unknown>): void => console.log("#", ...parts)

/** The median of the finite values; NaN when there are none. */
export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].filter(Number.isFinite).sort((a, b) => a - b)
  const middle = sorted.length >> 1
  if (sorted.length === 0) return Number.NaN
  const upper = sorted[middle] ?? Number.NaN
  return sorted.length % 2 === 1 ? upper : ((sorted[middle - 1] ?? Number.NaN) + upper) / 2
}

/** The nearest-rank percentile `q` (0–1) of the values, in any order. */
export const percentile = (values: ReadonlyArray<number>, q: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN
}

/** Rounded to two decimals. */
export const round2 = (n: number): number => Math.round(n * 100) / 100

/** The sum of the values. */
export const sum = (values: ReadonlyArray<number>): number => values.reduce((a, b) => a + b, 0)

/** A field of a parsed JSON value, when it is an object that has it. */
export const field = (value: unknown, key: string): unknown =>
  typeof value === "object" && value !== null && key in value ? Reflect.get(value, key) : undefined
