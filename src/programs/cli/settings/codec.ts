/**
 * How a setting's text (a flag's value, an INI value, an environment
 * variable) becomes a typed value: an Effect Schema from `string`, plus the
 * words a person reads when the text is not one (`a number from 0 to 5`).
 * Every source is text, so one codec serves all three.
 *
 * @module
 */
import { Either, Option, ParseResult, Redacted, Schema } from "effect"
import { statSync } from "node:fs"
import { homedir } from "node:os"
import * as path from "node:path"

/** A setting's type, read from text. */
export interface Codec<A> {
  /** What a valid text is, for the error line and the docs: `a number from 0 to 5`. */
  readonly expected: string
  /** The value's placeholder in help: `N`, `DIR`, `on|off`. */
  readonly metavar: string
  /** Decodes and validates; `base` anchors a relative path (the INI file's directory, else the working directory). */
  readonly decode: (text: string, base: string) => Either.Either<A, string>
  /** The value as a person writes it back, for `easyai config` (secrets hidden). */
  readonly show: (value: A) => string
  /** A text the codec accepts, and one it refuses: the table-driven test uses both. */
  readonly sample: readonly [valid: string, invalid: string]
}

const quoted = (text: string): string => JSON.stringify(text)

/** A codec from a Schema over `string`: any failure is `expected …, got "…"`. */
export const fromSchema = <A>(
  schema: Schema.Schema<A, string>,
  expected: string,
  metavar: string,
  sample: readonly [string, string],
  show: (value: A) => string = String
): Codec<A> => {
  const decode = Schema.decodeEither(schema)
  return {
    expected,
    metavar,
    sample,
    show,
    decode: (text) => Either.mapLeft(decode(text.trim()), () => `expected ${expected}, got ${quoted(text)}`)
  }
}

/** A number written plainly: `0.7`, `-2`, `1e3` (not `0x10`, `Infinity` or blank). */
const NumberText = Schema.String.pipe(
  Schema.pattern(/^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/),
  Schema.compose(Schema.NumberFromString),
  Schema.finite()
)

/** A number from `min` to `max`, both included. */
export const numberIn = (min: number, max: number): Codec<number> =>
  fromSchema(NumberText.pipe(Schema.between(min, max)), `a number from ${min} to ${max}`, "N", [String(min), String(max + 1)])

/** A number greater than 0. */
export const positive: Codec<number> = fromSchema(NumberText.pipe(Schema.positive()), "a number greater than 0", "N", ["1", "0"])

/** A whole number from `min` (to `max` when given). */
export const whole = (min: number, max?: number): Codec<number> =>
  fromSchema(
    Schema.String.pipe(Schema.pattern(/^[+-]?\d+$/), Schema.compose(Schema.NumberFromString), Schema.int()).pipe(
      max === undefined ? Schema.greaterThanOrEqualTo(min) : Schema.between(min, max)
    ),
    max === undefined ? `a whole number of at least ${min}` : `a whole number from ${min} to ${max}`,
    "N",
    [String(min), String(min - 1)]
  )

const truthy = ["on", "true", "yes", "1"] as const
const falsy = ["off", "false", "no", "0"] as const

/** on/off, true/false, yes/no, 1/0, in any case. */
const BooleanText = Schema.transformOrFail(Schema.String, Schema.Boolean, {
  strict: true,
  decode: (text, _, ast) => {
    const word = text.toLowerCase()
    if ((truthy as ReadonlyArray<string>).includes(word)) return ParseResult.succeed(true)
    if ((falsy as ReadonlyArray<string>).includes(word)) return ParseResult.succeed(false)
    return ParseResult.fail(new ParseResult.Type(ast, text))
  },
  encode: (value) => ParseResult.succeed(value ? "on" : "off")
})

const booleanWords = "on/off, true/false, yes/no or 1/0"

/** A boolean. */
export const boolean: Codec<boolean> = fromSchema(BooleanText, booleanWords, "on|off", ["off", "maybe"], (value) => (value ? "on" : "off"))

/** One of `literals`, in any case. */
export const oneOf = <const L extends readonly [string, ...Array<string>]>(literals: L): Codec<L[number]> =>
  fromSchema(
    Schema.transformOrFail(Schema.String, Schema.Literal(...literals), {
      strict: true,
      decode: (text, _, ast) =>
        Option.match(Option.fromNullable(literals.find((literal) => literal.toLowerCase() === text.toLowerCase())), {
          onNone: () => ParseResult.fail(new ParseResult.Type(ast, text)),
          onSome: ParseResult.succeed
        }),
      encode: ParseResult.succeed
    }),
    `one of ${literals.join(", ")}`,
    // A long list is spelled out in the doc line, not in the flag column.
    literals.length <= 4 ? literals.join("|") : "NAME",
    [literals[0], "nonsense"]
  )

/** `auto`, or a value of `codec`. */
export const orAuto = <A>(codec: Codec<A>): Codec<A | "auto"> => ({
  expected: `${codec.expected}, or auto`,
  metavar: `${codec.metavar}|auto`,
  sample: ["auto", codec.sample[1]],
  show: (value) => (value === "auto" ? "auto" : codec.show(value)),
  decode: (text, base) =>
    text.trim().toLowerCase() === "auto"
      ? Either.right("auto" as const)
      : Either.mapLeft(codec.decode(text, base), () => `expected ${codec.expected}, or auto, got ${quoted(text)}`)
})

const NonBlank = Schema.String.pipe(Schema.filter((text) => text.trim() !== ""))

/** Any text but blank. */
export const text: Codec<string> = fromSchema(NonBlank, "a value", "TEXT", ["easyai", ""])

/** A secret: never shown back. Blank is no value. */
export const secret: Codec<Redacted.Redacted<string>> = fromSchema(
  Schema.Redacted(NonBlank),
  "a value",
  "KEY",
  ["s3cret", ""],
  () => "<hidden>"
)

/** A month, `YYYY-MM`. */
export const month: Codec<string> = fromSchema(
  Schema.String.pipe(Schema.pattern(/^\d{4}-(?:0[1-9]|1[0-2])$/)),
  "a month as YYYY-MM",
  "YYYY-MM",
  ["2024-10", "October"]
)

/** `~/x` from the home directory, `x` from `base`. */
export const resolvePath = (base: string, value: string): string => {
  const trimmed = value.trim()
  if (trimmed === "~") return homedir()
  if (trimmed.startsWith("~/")) return path.join(homedir(), trimmed.slice(2))
  return path.resolve(base, trimmed)
}

/** A path, made absolute; `check` says what is wrong with the file it names, if anything. */
const pathCodec = (
  expected: string,
  metavar: string,
  sample: readonly [string, string],
  check: (absolute: string) => string | undefined
): Codec<string> => ({
  expected,
  metavar,
  sample,
  show: String,
  decode: (value, base) => {
    if (value.trim() === "") return Either.left(`expected ${expected}, got ""`)
    const absolute = resolvePath(base, value)
    const problem = check(absolute)
    return problem === undefined ? Either.right(absolute) : Either.left(`${quoted(value)} ${problem}`)
  }
})

const kindOf = (absolute: string): "directory" | "file" | "missing" => {
  try {
    return statSync(absolute).isDirectory() ? "directory" : "file"
  } catch {
    return "missing"
  }
}

/** A path that may not exist yet (a memory directory, a log file). */
export const anyPath: Codec<string> = pathCodec("a path", "PATH", ["/tmp", ""], () => undefined)

/** An existing directory. */
export const directory: Codec<string> = pathCodec("an existing directory", "DIR", ["/", "/no/such/directory"], (absolute) => {
  const kind = kindOf(absolute)
  return kind === "directory" ? undefined : kind === "file" ? "is a file, not a directory" : "does not exist"
})

/** An existing file. */
export const file: Codec<string> = pathCodec("an existing file", "FILE", ["/bin/sh", "/no/such/file"], (absolute) => {
  const kind = kindOf(absolute)
  return kind === "file" ? undefined : kind === "directory" ? "is a directory, not a file" : "does not exist"
})

/** A value read by a parser of the program's own, which says what is wrong. */
export const parsedBy = <A>(
  expected: string,
  metavar: string,
  parse: (text: string) => Either.Either<A, string>,
  sample: readonly [string, string],
  show: (value: A) => string
): Codec<A> => ({
  expected,
  metavar,
  sample,
  show,
  decode: (value) => Either.mapLeft(parse(value), (detail) => detail)
})

/** Comma-separated items, each checked by `item` (none when blank). */
export const list = (
  expected: string,
  metavar: string,
  sample: readonly [string, string],
  item: (entry: string) => string | undefined = () => undefined
): Codec<ReadonlyArray<string>> =>
  parsedBy(
    `comma-separated ${expected}`,
    metavar,
    (value) => {
      const entries: ReadonlyArray<string> = value.split(",").map((entry) => entry.trim()).filter((entry) => entry !== "")
      if (entries.length === 0) return Either.left(`expected comma-separated ${expected}, got ${quoted(value)}`)
      const problem = entries.map(item).find((found) => found !== undefined)
      return problem === undefined ? Either.right(entries) : Either.left(problem)
    },
    sample,
    (entries) => entries.join(",")
  )

/** Comma-separated values of `codec`, each decoded (a list of directories, each made absolute). */
export const listOf = <A>(codec: Codec<A>, sample: readonly [string, string]): Codec<ReadonlyArray<A>> => ({
  expected: `comma-separated: each ${codec.expected}`,
  metavar: codec.metavar,
  sample,
  show: (values) => values.map(codec.show).join(","),
  decode: (value, base) =>
    Either.all(value.split(",").filter((entry) => entry.trim() !== "").map((entry) => codec.decode(entry, base)))
})
