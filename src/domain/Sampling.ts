/**
 * Sampling: the shapers chosen per request (temperature and the three tail
 * cutters), the penalties fixed at load time, and the named presets.
 *
 * The asymmetry is deliberate: shapers are style knobs a request may change;
 * penalties are operator-tuned guardrails against loops that a third-party
 * prompt must not switch off.
 *
 * @module
 */
import { Option, Schema } from "effect"

const samplingFields = {
  temperature: Schema.Number.pipe(Schema.between(0, 5)),
  topP: Schema.Number.pipe(Schema.between(0, 1)),
  topK: Schema.Int.pipe(Schema.nonNegative()),
  minP: Schema.Number.pipe(Schema.between(0, 1))
}

/** The per-request shapers. `topK: 0` disables the top-k cut. */
export class SamplingParams extends Schema.Class<SamplingParams>("SamplingParams")(samplingFields) {}

/** A partial override of the shapers, e.g. from a request body. */
export const SamplingOverrides = Schema.Struct(samplingFields).pipe(Schema.partialWith({ exact: true }))
/** A partial override of the shapers, e.g. from a request body. */
export type SamplingOverrides = typeof SamplingOverrides.Type

/** The load-time penalties. `repeatPenalty: 1` and zeros switch them off. */
export class Penalties extends Schema.Class<Penalties>("Penalties")({
  repeatPenalty: Schema.Number.pipe(Schema.positive()),
  frequencyPenalty: Schema.Number.pipe(Schema.between(-2, 2)),
  presencePenalty: Schema.Number.pipe(Schema.between(-2, 2))
}) {
  /** The defaults that tested best on long agentic flows. */
  static readonly default = new Penalties({ repeatPenalty: 1.04, frequencyPenalty: 0.05, presencePenalty: 0.1 })
}

/** The names of the presets, in order from most focused to most random. */
export const PresetName = Schema.Literal("deterministic", "precise", "balanced", "creative", "wild")
/** The names of the presets, in order from most focused to most random. */
export type PresetName = typeof PresetName.Type

/**
 * The presets:
 *
 * | preset        | temperature | top_p | top_k | min_p | use it for |
 * |---------------|-------------|-------|-------|-------|------------|
 * | deterministic | 0.0 | 1.0  | 1   | 0.0  | greedy: same prompt, same reply (CI, evals) |
 * | precise       | 0.2 | 1.0  | 50  | 0.10 | the default: code, maths, facts, tool calls |
 * | balanced      | 0.7 | 0.95 | 50  | 0.05 | general chat, summaries |
 * | creative      | 1.0 | 0.95 | 50  | 0.0  | brainstorming, fiction |
 * | wild          | 1.4 | 0.98 | 0   | 0.0  | exploration with relaxed cutters; don't ship it |
 */
export const presets: Readonly<Record<PresetName, SamplingParams>> = {
  deterministic: new SamplingParams({ temperature: 0, topP: 1, topK: 1, minP: 0 }),
  precise: new SamplingParams({ temperature: 0.2, topP: 1, topK: 50, minP: 0.1 }),
  balanced: new SamplingParams({ temperature: 0.7, topP: 0.95, topK: 50, minP: 0.05 }),
  creative: new SamplingParams({ temperature: 1, topP: 0.95, topK: 50, minP: 0 }),
  wild: new SamplingParams({ temperature: 1.4, topP: 0.98, topK: 0, minP: 0 })
}

/** The project-wide default preset. */
export const defaultPreset: PresetName = "precise"

/** The sampling of a preset, with optional overrides applied on top. */
export const resolveSampling = (preset: PresetName, overrides: SamplingOverrides = {}): SamplingParams =>
  new SamplingParams({ ...presets[preset], ...overrides })

/** Looks a preset up by name, ignoring case and surrounding blanks. */
export const findPreset = (name: string): Option.Option<PresetName> => {
  const wanted = name.trim().toLowerCase()
  return Option.fromNullable(PresetName.literals.find((preset) => preset === wanted))
}

/** What an inline preset prefix asked for, and the text left after it. */
export interface PresetPrefix {
  readonly preset: PresetName
  readonly temperature: Option.Option<number>
  readonly text: string
}

const isBlank = (char: string): boolean => char === " " || char === "\t" || char === "\n" || char === "\r"

/** Splits off the first blank-separated word: [word, rest with leading blanks removed]. */
const firstWord = (text: string): readonly [string, string] => {
  let start = 0
  while (start < text.length && isBlank(text.charAt(start))) start++
  let end = start
  while (end < text.length && !isBlank(text.charAt(end))) end++
  let rest = end
  while (rest < text.length && isBlank(text.charAt(rest))) rest++
  return [text.slice(start, end), text.slice(rest)]
}

/** A plain decimal number such as `0.9`, `1` or `.5` (no sign, no exponent). */
const parseTemperature = (word: string): Option.Option<number> => {
  let digits = 0
  let dots = 0
  for (const char of word) {
    if (char >= "0" && char <= "9") digits++
    else if (char === ".") dots++
    else return Option.none()
  }
  if (digits === 0 || dots > 1) return Option.none()
  const value = Number(word)
  return value >= 0 && value <= 2 ? Option.some(value) : Option.none()
}

/**
 * Peels an inline preset prefix off a user line:
 *
 * - `creative 0.9 write a poem` → preset creative, temperature 0.9, text `write a poem`
 * - `precise what is 2+2?` → preset precise, text `what is 2+2?`
 * - `wild` → preset wild, empty text (a pure preset switch)
 *
 * The preset must be the first word, written in lower case exactly as named,
 * so a sentence that merely starts with "Balanced …" is left alone. The
 * temperature is taken only when the second word is a plain number from 0 to 2.
 */
export const parsePresetPrefix = (line: string): Option.Option<PresetPrefix> => {
  const [word, afterPreset] = firstWord(line)
  const preset = PresetName.literals.find((name) => name === word)
  if (preset === undefined) return Option.none()
  const [second, afterTemperature] = firstWord(afterPreset)
  const temperature = parseTemperature(second)
  return Option.some({
    preset,
    temperature,
    text: Option.isSome(temperature) ? afterTemperature : afterPreset
  })
}
