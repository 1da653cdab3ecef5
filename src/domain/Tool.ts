/**
 * The tool-authoring API. A tool is a name, a description, a parameter
 * Schema and a handler; the JSON Schema the model sees is derived from the
 * parameter Schema, and the arguments the model writes are decoded leniently
 * and validated strictly before the handler runs.
 *
 * {@link define} needs no Effect: parameters as a zod (or any Standard
 * Schema) schema or a plain JSON Schema, a handler returning a value or a
 * Promise, cancelled through an `AbortSignal`:
 *
 * ```ts
 * const rollDice = Tool.define({
 *   name: "roll_dice",
 *   description: "Roll dice. Example: {\"sides\": 6}",
 *   parameters: z.object({ sides: z.int().min(2).max(100) }),
 *   handler: ({ sides }) => String(1 + Math.floor(Math.random() * sides))
 * })
 * ```
 *
 * {@link make} takes an Effect Schema and a handler returning an `Effect`:
 *
 * ```ts
 * const rollDice = Tool.make({
 *   name: "roll_dice",
 *   description: "Roll dice. Example: {\"sides\": 6}",
 *   parameters: Schema.Struct({ sides: Schema.Int.pipe(Schema.between(2, 100)) }),
 *   handler: ({ sides }) => Effect.succeed(String(1 + Math.floor(Math.random() * sides)))
 * })
 * ```
 *
 * @module
 */
import type { StandardSchemaV1 } from "@standard-schema/spec"
import { Effect, Either, JSONSchema, ParseResult, Schema, SchemaAST } from "effect"
import { ToolFailure } from "./errors.js"
import { isStandardSchema, standardJsonSchema, validateStandard } from "./standardSchema.js"
import {
  coerceArguments,
  describeExpected,
  describeParameters,
  exampleArguments,
  parseArgumentObject,
  requiredProperties,
  schemaAt,
  valueAt
} from "./ToolArguments.js"
import { type JsonSchema, type ToolAnnotations, ToolResult, ToolSpec, wireDescription } from "./ToolCall.js"
import { errorText } from "./errorText.js"
import { isObject } from "./json.js"

/** What a handler returns: plain text, or a full result (to flag an error itself). */
export type ToolOutput = string | ToolResult

/**
 * Which surface of a tool family a tool belongs to. `split` tools are one
 * focused verb each (`fs_read`, `fs_write`); `unified` tools dispatch on an
 * `action` field (`fs(action="read")`). The registry's tool mode decides
 * which surfaces the model sees; `always` tools are shown in every mode.
 */
export type ToolSurface = "always" | "split" | "unified"

/** A tool, ready to register: its spec and how to invoke it. */
export interface Tool {
  readonly spec: ToolSpec
  readonly surface: ToolSurface
  /**
   * Decodes the raw argument text and runs the handler. Never fails: bad
   * arguments and handler failures come back as error results that teach
   * the model the correct call. Handler defects are left to the registry.
   */
  readonly invoke: (rawArguments: string) => Effect.Effect<ToolResult>
}

/** The options both tool constructors share. */
export interface ToolOptions {
  /** The function name the model calls: 1 to 64 letters, digits, `_` or `-`. */
  readonly name: string
  /** The full manual: purpose, required and optional parameters, output, examples, errors. */
  readonly description: string
  /** The one-line trigger shown on the wire; defaults to the description's first line. */
  readonly shortDescription?: string
  /** Prompt-level guidance this tool ships itself, spliced into the system prompt. */
  readonly systemAddendum?: string
  /** Example argument objects; the first one is shown when a call is rejected. */
  readonly examples?: ReadonlyArray<Record<string, unknown>>
  /**
   * For tools that dispatch on a required `action` field: infers the action
   * from the other arguments when the model left it out.
   */
  readonly inferAction?: (args: Readonly<Record<string, unknown>>) => string | undefined
  /** The tool-family surface; `always` by default. */
  readonly surface?: ToolSurface
  /** What the tool does to the world (read-only, destructive…), for clients deciding how to confirm a call. */
  readonly annotations?: ToolAnnotations
  /** The JSON Schema of the data the handler returns with `ToolResult.data`. */
  readonly outputSchema?: JsonSchema
}

/**
 * What a handler may fail with: `ToolFailure`, or any error with a message
 * (tagged errors qualify). The message is what the model reads.
 */
export interface HandlerError {
  readonly message: string
  readonly _tag?: string
}

/** Options of {@link make}: parameters as an Effect Schema. */
export interface MakeOptions<A, I> extends ToolOptions {
  /** The parameters, usually a `Schema.Struct`; omit for a tool that takes none. */
  readonly parameters?: Schema.Schema<A, I, never>
  /** Runs the call. Fail with `ToolFailure` to tell the model what went wrong. */
  readonly handler: (params: A) => Effect.Effect<ToolOutput, HandlerError>
}

/** Options of {@link fromJsonSchema}: parameters as a JSON Schema from elsewhere. */
export interface JsonSchemaOptions extends ToolOptions {
  readonly parameters: JsonSchema
  readonly handler: (args: Readonly<Record<string, unknown>>) => Effect.Effect<ToolOutput, HandlerError>
}

const noParameters: JsonSchema = { type: "object", properties: {} }

const isEmptyStruct = (ast: SchemaAST.AST): boolean =>
  SchemaAST.isTypeLiteral(ast) && ast.propertySignatures.length === 0 && ast.indexSignatures.length === 0

/**
 * Whether a `title` is the name Effect gives its own refinements
 * (`"int"`, `"maxLength(64)"`, `"between(1, 20)"`): an internal name, not a
 * label. A title someone chose ("City") starts with a capital or has spaces.
 */
const isRefinementName = (title: unknown): boolean =>
  typeof title === "string" && /^[a-z][A-Za-z0-9]*(\(.*\))?$/.test(title)

/** The keywords whose value is a map of names to subschemas (a property named `title` is not a title). */
const schemaMaps = new Set(["properties", "$defs", "definitions", "patternProperties"])

/** `node` without the refinement names Effect writes as `title`, at every depth; MCP clients show titles as labels. */
const withoutRefinementTitles = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(withoutRefinementTitles)
  if (typeof node !== "object" || node === null) return node
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) {
    if (key === "title" && isRefinementName(value)) continue
    out[key] = schemaMaps.has(key) && isObject(value)
      ? Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, withoutRefinementTitles(sub)]))
      : withoutRefinementTitles(value)
  }
  return out
}

/**
 * The JSON Schema of a parameter Schema, inlined (no top-level `$ref`) and
 * describing the encoded side: what the model must write. Effect's internal
 * refinement names are left out of `title`.
 */
export const parametersJsonSchema = <A, I>(parameters: Schema.Schema<A, I, never>): JsonSchema => {
  if (isEmptyStruct(parameters.ast)) return noParameters
  const definitions: Record<string, JSONSchema.JsonSchema7> = {}
  const json = JSONSchema.fromAST(parameters.ast, { definitions, topLevelReferenceStrategy: "skip" })
  const full = Object.keys(definitions).length === 0 ? { ...json } : { ...json, $defs: definitions }
  // A JSON object in, a JSON object out: only `title` keys were dropped.
  return withoutRefinementTitles(full) as JsonSchema
}

const toResult = (output: ToolOutput): ToolResult => (typeof output === "string" ? ToolResult.ok(output) : output)

/** The message of a handler failure, for the model to read. */
const failureText = (error: HandlerError): string =>
  error.message !== "" ? error.message : error._tag ?? "the tool failed"

/**
 * The teaching message for a rejected call: what is wrong, the parameters,
 * and a correct example call (the tool's own first example when it has one).
 */
export const rejection = (
  name: string,
  schema: JsonSchema,
  reason: string,
  examples?: ReadonlyArray<Record<string, unknown>>
): ToolResult => {
  const example = examples?.[0] ?? exampleArguments(schema)
  return ToolResult.error(
    [
      `${name}: invalid arguments: ${reason}`,
      `Parameters: ${describeParameters(schema)}`,
      `Example call: ${name}(${JSON.stringify(example)})`
    ].join("\n")
  )
}

/** Parses, repairs the forgivable, and fills in an inferred action. */
const prepareArguments = (
  raw: string,
  schema: JsonSchema,
  options: ToolOptions
): Either.Either<Readonly<Record<string, unknown>>, string> =>
  Either.map(parseArgumentObject(raw), (parsed) => {
    const coerced = coerceArguments(parsed, schema)
    if (options.inferAction === undefined || "action" in coerced) return coerced
    if (!requiredProperties(schema).includes("action")) return coerced
    const action = options.inferAction(coerced)
    return action === undefined ? coerced : { ...coerced, action }
  })

/**
 * One line per offending parameter, worded from the JSON Schema the model
 * was shown (Effect's own messages would quote description annotations).
 */
export const explainDecodeFailure = (schema: JsonSchema, args: unknown) => (error: ParseResult.ParseError): string => {
  const seen = new Set<string>()
  const lines: Array<string> = []
  for (const issue of ParseResult.ArrayFormatter.formatErrorSync(error)) {
    const path = issue.path.join(".")
    if (seen.has(path)) continue // unions report one line per member; the first says enough
    seen.add(path)
    const expected = schemaAt(schema, issue.path)
    const message = issue._tag === "Missing"
      ? "is missing"
      : issue._tag === "Unexpected"
      ? "is not a parameter of this tool"
      : expected === undefined
      ? issue.message
      : `expected ${describeExpected(expected)}, got ${JSON.stringify(valueAt(args, issue.path))}`
    lines.push(path === "" ? message : `${path}: ${message}`)
  }
  return lines.join("; ")
}

const buildSpec = (options: ToolOptions, parameters: JsonSchema): ToolSpec =>
  new ToolSpec({
    name: options.name,
    description: options.description,
    shortDescription: wireDescription(options.description, options.shortDescription),
    parameters,
    ...(options.systemAddendum === undefined ? {} : { systemAddendum: options.systemAddendum }),
    ...(options.annotations === undefined ? {} : { annotations: options.annotations }),
    ...(options.outputSchema === undefined ? {} : { outputSchema: options.outputSchema })
  })

/** Builds `invoke`: prepare the arguments, validate them, run the handler, never fail. */
const invoker = <A>(
  options: ToolOptions,
  schema: JsonSchema,
  validate: (args: Readonly<Record<string, unknown>>) => Effect.Effect<A, string>,
  handler: (params: A) => Effect.Effect<ToolOutput, HandlerError>
) =>
(raw: string): Effect.Effect<ToolResult> =>
  // Suspended, so code that throws while building the handler's Effect is a defect the registry catches.
  Effect.suspend(() =>
    Effect.flatMap(prepareArguments(raw, schema, options), validate).pipe(
      Effect.matchEffect({
        onFailure: (reason) => Effect.succeed(rejection(options.name, schema, reason, options.examples)),
        onSuccess: (params) =>
          handler(params).pipe(
            Effect.map(toResult),
            Effect.catchAll((error) => Effect.succeed(ToolResult.error(`${options.name}: ${failureText(error)}`)))
          )
      })
    )
  )

/** Defines a tool whose parameters are an Effect Schema. */
export const make = <A, I>(options: MakeOptions<A, I>): Tool => {
  if (options.parameters === undefined) {
    return {
      spec: buildSpec(options, noParameters),
      surface: options.surface ?? "always",
      invoke: invoker(options, noParameters, rejectAnyArgument, () => options.handler({} as A)) // no parameters: A is {}
    }
  }
  const schema = parametersJsonSchema(options.parameters)
  const decode = Schema.decodeUnknownEither(options.parameters, { errors: "all", onExcessProperty: "error" })
  return {
    spec: buildSpec(options, schema),
    surface: options.surface ?? "always",
    invoke: invoker(options, schema, (args) => Either.mapLeft(decode(args), explainDecodeFailure(schema, args)), options.handler)
  }
}

const rejectAnyArgument = (args: Readonly<Record<string, unknown>>): Either.Either<void, string> => {
  const names = Object.keys(args)
  return names.length === 0 ? Either.void : Either.left(`this tool takes no arguments, got: ${names.join(", ")}`)
}

const checkRequired = (schema: JsonSchema) =>
(args: Readonly<Record<string, unknown>>): Either.Either<Readonly<Record<string, unknown>>, string> => {
  const missing = requiredProperties(schema).filter((name) => !(name in args))
  return missing.length === 0 ? Either.right(args) : Either.left(missing.map((name) => `${name}: is missing`).join("; "))
}

/**
 * Defines a tool whose parameters are a JSON Schema from elsewhere (an
 * external manifest, an MCP server). Arguments are repaired leniently and
 * required parameters are checked; deeper validation is the handler's.
 */
export const fromJsonSchema = (options: JsonSchemaOptions): Tool => ({
  spec: buildSpec(options, options.parameters),
  surface: options.surface ?? "always",
  invoke: invoker(options, options.parameters, checkRequired(options.parameters), options.handler)
})

/** What a plain handler is given besides the arguments. */
export interface HandlerContext {
  /** Aborted when the call is cancelled (the turn interrupted, Ctrl+C): stop the work and return. */
  readonly signal: AbortSignal
}

/**
 * A handler in plain TypeScript: returns the output, or a Promise of it. An
 * error it throws (or rejects with) becomes an error result whose text is
 * the error's message, for the model to read.
 */
export type PlainHandler<A> = (params: A, context: HandlerContext) => ToolOutput | PromiseLike<ToolOutput>

/** Options of {@link define} with parameters as a Standard Schema (zod 4, valibot, ArkType, …). */
export interface StandardSchemaOptions<S extends StandardSchemaV1> extends ToolOptions {
  readonly parameters: S
  /** The JSON Schema the model is shown, when the schema's library cannot convert it itself. */
  readonly jsonSchema?: JsonSchema
  readonly handler: PlainHandler<StandardSchemaV1.InferOutput<S>>
}

/** Options of {@link define} with parameters as a plain JSON Schema, or none. */
export interface PlainJsonSchemaOptions extends ToolOptions {
  readonly parameters?: JsonSchema
  readonly handler: PlainHandler<Readonly<Record<string, unknown>>>
}

/** Runs a plain handler as an Effect whose interruption aborts its signal. */
const runPlain = <A>(handler: PlainHandler<A>) => (params: A): Effect.Effect<ToolOutput, HandlerError> =>
  Effect.tryPromise({
    try: async (signal) => handler(params, { signal }),
    catch: (error) => ({ message: errorText(error) })
  })

/**
 * Defines a tool without Effect: parameters as a Standard Schema (its
 * library supplies the JSON Schema, e.g. zod 4's; else pass `jsonSchema`)
 * or a plain JSON Schema, and a handler returning a value or a Promise.
 * Arguments are repaired as leniently as with {@link make}; a Standard
 * Schema then validates them, and its issues teach the model the call.
 */
export function define<S extends StandardSchemaV1>(options: StandardSchemaOptions<S>): Tool
export function define(options: PlainJsonSchemaOptions): Tool
export function define(options: StandardSchemaOptions<StandardSchemaV1> | PlainJsonSchemaOptions): Tool {
  if (!isStandardOptions(options)) {
    return fromJsonSchema({ ...options, parameters: options.parameters ?? noParameters, handler: runPlain(options.handler) })
  }
  const parameters = options.parameters
  const schema = options.jsonSchema ?? standardJsonSchema(parameters)
  if (schema === undefined) {
    throw new TypeError(
      `tool ${options.name}: its parameters' library (${parameters["~standard"].vendor}) cannot describe them as JSON Schema: pass jsonSchema`
    )
  }
  return {
    spec: buildSpec(options, schema),
    surface: options.surface ?? "always",
    invoke: invoker(options, schema, (args) => validateStandard(parameters, args), runPlain(options.handler))
  }
}

const isStandardOptions = (
  options: StandardSchemaOptions<StandardSchemaV1> | PlainJsonSchemaOptions
): options is StandardSchemaOptions<StandardSchemaV1> => isStandardSchema(options.parameters)

/** A failure for a handler to return when the model should read `message`. */
export const fail = (message: string): Effect.Effect<never, ToolFailure> => Effect.fail(new ToolFailure({ message }))

const isNameChar = (char: string): boolean =>
  (char >= "a" && char <= "z") || (char >= "A" && char <= "Z") || (char >= "0" && char <= "9") || char === "_" ||
  char === "-"

/** Whether `name` is a valid function name for every OpenAI-compatible backend. */
export const isValidName = (name: string): boolean =>
  name.length >= 1 && name.length <= 64 && [...name].every(isNameChar)
