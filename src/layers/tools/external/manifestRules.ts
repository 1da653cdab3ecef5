/**
 * The rules every part of a tools manifest is checked against: its limits,
 * what a name may be, and how a problem is reported (naming the file, the
 * tool and the field, and showing the value as the operator wrote it).
 *
 * @module
 */

/** The limits a manifest must respect; each closes a class of resource abuse. */
export const limits = {
  manifestBytes: 1_048_576,
  tools: 128,
  nameChars: 64,
  descriptionChars: 4096,
  parameters: 32,
  argvElements: 256,
  argvElementBytes: 4096,
  envPassthrough: 16,
  timeoutMillis: { min: 100, max: 300_000, default: 10_000 },
  maxOutputBytes: { min: 1024, max: 4_194_304, default: 65_536 }
} as const

/** A parameter's JSON type; only scalars, so every value fills exactly one argv element. */
export type ParameterType = "string" | "integer" | "number" | "boolean"

/** One declared parameter of an external tool. */
export interface ExternalParameter {
  readonly name: string
  readonly type: ParameterType
  readonly description: string | undefined
  readonly required: boolean
}

/** One argv element: fixed text, or the whole value of one parameter. */
export type ArgvElement =
  | { readonly _tag: "Literal"; readonly text: string }
  | { readonly _tag: "Placeholder"; readonly parameter: string }

type JsonRecord = { readonly [key: string]: unknown }

const isLetter = (char: string): boolean => (char >= "a" && char <= "z") || (char >= "A" && char <= "Z")
/** Whether `char` is an ASCII digit. */
export const isDigit = (char: string): boolean => char >= "0" && char <= "9"

/**
 * Whether `name` is a letter followed by up to 63 letters, digits or `_`:
 * the rule for tool names and environment variable names.
 */
export const isIdentifier = (name: string): boolean =>
  name.length >= 1 && name.length <= limits.nameChars && isLetter(name.charAt(0)) &&
  [...name].every((char) => isLetter(char) || isDigit(char) || char === "_")

/**
 * Whether `name` can name a parameter: a letter, then up to 63 letters,
 * digits, `_` or `-`. No braces, so a placeholder is never ambiguous.
 */
export const isParameterName = (name: string): boolean =>
  name.length >= 1 && name.length <= limits.nameChars && isLetter(name.charAt(0)) &&
  [...name].every((char) => isLetter(char) || isDigit(char) || char === "_" || char === "-")

/** How a valid identifier is spelled, for messages. */
export const identifierRule = "it must start with a letter and continue with up to 63 letters, digits or \"_\""
/** How a valid parameter type is spelled, for messages. */
export const typeRule = "use \"string\", \"integer\", \"number\" or \"boolean\""

/** A value as an operator would recognise it in an error message. */
export const shown = (value: unknown): string => {
  if (typeof value === "string") return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)
  if (typeof value === "number" || typeof value === "boolean") return String(value)
  if (value === null) return "null"
  if (Array.isArray(value)) return "an array"
  return "an object"
}

/** The last component of a path. */
export const baseName = (path: string): string => path.slice(path.lastIndexOf("/") + 1)

/** Where the checks of one tool report; `where` names the tool once its name is known. */
export interface Report {
  where: string
  readonly error: (message: string) => void
  readonly warn: (message: string) => void
}

/** Reports fields the checks do not know: usually a typo, never silently meaningful. */
export const unknownFields = (
  record: JsonRecord,
  known: ReadonlyArray<string>,
  warn: (message: string) => void,
  what: string
): void => {
  for (const key of Object.keys(record)) {
    if (!known.includes(key)) warn(`${what}unknown field ${JSON.stringify(key)} is ignored`)
  }
}

/**
 * A field that must be an array of at most `max` entries: the array, or
 * `undefined` with the problem reported (`shape` says what it must hold,
 * `unit` names its entries in the count).
 */
export const boundedArray = (
  value: unknown,
  field: string,
  shape: string,
  unit: string,
  max: number,
  report: Report
): ReadonlyArray<unknown> | undefined => {
  if (!Array.isArray(value)) {
    report.error(`${report.where}: "${field}" must be an array of ${shape}, got ${shown(value)}`)
    return undefined
  }
  if (value.length > max) {
    report.error(`${report.where}: "${field}" has ${value.length} ${unit}, more than ${max}`)
    return undefined
  }
  return value
}
