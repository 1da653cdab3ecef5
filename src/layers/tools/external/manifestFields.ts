/**
 * The scalar fields of a manifest tool as Schemas whose message annotations
 * say, in an operator's words, what is wrong and how to write it instead.
 * {@link decodeField} reports each problem under the tool it belongs to.
 *
 * @module
 */
import { Either, ParseResult, Schema } from "effect"
import { baseName, identifierRule, isIdentifier, limits, type Report, shown, typeRule } from "./manifestRules.js"

/** The `cwd` token meaning "the sandbox root". */
export const sandboxCwd = "$SANDBOX"

const text = (field: string) =>
  Schema.String.annotations({ message: (issue) => `"${field}" must be a string, got ${shown(issue.actual)}` })

const withoutNul = (field: string) =>
  Schema.filter<Schema.Schema<string>>((value) => !value.includes("\0"), { message: () => `"${field}" contains a NUL byte` })

const characters = (value: unknown): number => [...String(value)].length

/** A tool's name: a letter, then up to 63 letters, digits or `_`. */
export const ToolName = text("name").pipe(
  Schema.filter(isIdentifier, { message: (issue) => `name ${shown(issue.actual)} is invalid: ${identifierRule}` })
)

/** What the model reads about the tool: not blank, at most 4096 characters. */
export const Description = text("description").pipe(
  Schema.filter((value) => value.trim() !== "", {
    message: () => "\"description\" is empty; tell the model what the tool does and when to use it"
  }),
  Schema.filter((value) => characters(value) <= limits.descriptionChars, {
    message: (issue) => `"description" has ${characters(issue.actual)} characters, more than ${limits.descriptionChars}`
  })
)

/** The program to run: an absolute path, since no PATH search happens. */
export const Command = text("command").pipe(
  withoutNul("command"),
  Schema.filter((value) => value.startsWith("/"), {
    message: (issue) =>
      `command ${shown(issue.actual)} is not an absolute path; ` +
      `write the full path (no PATH search happens), such as "/usr/bin/${baseName(String(issue.actual))}"`
  })
)

/** The working directory: an absolute path, or {@link sandboxCwd}. */
export const Cwd = text("cwd").pipe(
  withoutNul("cwd"),
  Schema.filter((value) => value === sandboxCwd || value.startsWith("/"), {
    message: (issue) => `cwd ${shown(issue.actual)} must be an absolute path or "${sandboxCwd}"`
  })
)

/** What happens to the command's stderr. */
export const Stderr = Schema.Literal("merge", "discard").annotations({
  // override: one line for the field, not one per literal of the union
  message: (issue) => ({ message: `"stderr" must be "merge" or "discard", got ${shown(issue.actual)}`, override: true })
})

/** Whether a non-zero exit is reported to the model as an error. */
export const NonzeroIsError = Schema.Boolean.annotations({
  message: (issue) => `"treat_nonzero_exit_as_error" must be true or false, got ${shown(issue.actual)}`
})

/** One declared parameter, named `name` in messages: its scalar `type` and an optional `description`. */
export const ParameterProperty = (name: string) =>
  Schema.Struct({
    type: Schema.propertySignature(
      Schema.Literal("string", "integer", "number", "boolean").annotations({
        // override: one line for the field, not one per literal of the union
        message: (issue) => ({ message: `parameter "${name}" has type ${JSON.stringify(issue.actual)}; ${typeRule}`, override: true })
      })
    ).annotations({ missingMessage: () => `parameter "${name}" has no "type"; ${typeRule}` }),
    description: Schema.optionalWith(
      Schema.String.annotations({
        message: (issue) => `parameter "${name}": "description" must be a string, got ${shown(issue.actual)}`
      }),
      { exact: true }
    )
  })

/** The first problem of a failed decode, in the words of the Schema's message annotations. */
export const firstProblem = (error: ParseResult.ParseError): string =>
  ParseResult.ArrayFormatter.formatErrorSync(error)[0]?.message ?? error.message

/**
 * Decodes `tool[field]` with `schema`. Absent: `undefined`, reported as
 * missing when `required`. Invalid: `undefined`, each problem reported under
 * the tool it belongs to.
 */
export const decodeField = <A, I>(
  tool: { readonly [key: string]: unknown },
  field: string,
  schema: Schema.Schema<A, I>,
  report: Report,
  required: boolean
): A | undefined => {
  if (!Object.hasOwn(tool, field)) {
    if (required) report.error(`${report.where}: "${field}" is missing`)
    return undefined
  }
  const decoded = Schema.decodeUnknownEither(schema)(tool[field])
  if (Either.isRight(decoded)) return decoded.right
  for (const issue of ParseResult.ArrayFormatter.formatErrorSync(decoded.left)) report.error(`${report.where}: ${issue.message}`)
  return undefined
}
