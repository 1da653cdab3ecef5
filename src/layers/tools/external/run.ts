/**
 * An external tool at call time: the model's arguments checked strictly
 * against the declared types, substituted whole into argv, and the command
 * run through the `Sandbox` (no shell, clean environment, closed stdin, its
 * own process group, a timeout and an output cap).
 *
 * Why the arguments are checked before `Tool.fromJsonSchema` sees them: the
 * shared argument reader forgives small-model slips such as `"true"` for a
 * boolean or `"3"` for an integer, and by the time a handler runs that
 * repair cannot be told apart from what the model wrote. An external tool
 * must reject those (the value reaches another program, and the operator
 * declared its type), so `invoke` validates the raw argument text first and
 * only then hands the call to the `Tool.fromJsonSchema` tool, which keeps
 * the shared wording for unparseable arguments and handler failures. The
 * handler validates again, on values the repair left untouched, to get them
 * typed.
 *
 * @module
 */
import { Duration, Effect, Either } from "effect"
import * as Tool from "../../../domain/Tool.js"
import { describeJsonType, type JsonObject, parseArgumentObject } from "../../../domain/ToolArguments.js"
import { type JsonSchema, ToolResult } from "../../../domain/ToolCall.js"
import { type ProcessResult, Sandbox, type Service as SandboxService } from "../../../services/Sandbox.js"
import { isEasyaiVariable } from "../../sandbox/toolEnv.js"
import { ending, outputWithNote } from "../processReport.js"
import { type ExternalToolDefinition } from "./manifest.js"
import { sandboxCwd } from "./manifestFields.js"
import type { ExternalParameter } from "./manifestRules.js"
import { utf8Length } from "../../../domain/utf8.js"

/** A checked argument value; each fills exactly one argv element. */
export type ArgumentValue = string | number | boolean

/** Longest environment value passed through; a larger one is left out, as if unset. */
export const maxEnvValueBytes = 4096

/** Grace between SIGTERM and SIGKILL when a call runs out of time. */
const killGrace = Duration.seconds(1)

/** The JSON Schema the model sees: the declared parameters, types and descriptions only. */
export const parametersSchema = (definition: ExternalToolDefinition): JsonSchema => {
  const properties: Record<string, JsonSchema> = {}
  for (const parameter of definition.parameters) {
    properties[parameter.name] = parameter.description === undefined
      ? { type: parameter.type }
      : { type: parameter.type, description: parameter.description }
  }
  const required = definition.parameters.filter((parameter) => parameter.required).map((parameter) => parameter.name)
  return required.length === 0 ? { type: "object", properties } : { type: "object", properties, required }
}

const got = (value: unknown): string => {
  if (typeof value === "string") {
    return `string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`
  }
  if (typeof value === "number" || typeof value === "boolean") return `${typeof value} ${value}`
  return describeJsonType(value)
}

/** Why `value` is not a valid `parameter`, or undefined when it is. */
const typeProblem = (parameter: ExternalParameter, value: unknown): string | undefined => {
  switch (parameter.type) {
    case "string":
      if (typeof value !== "string") return `expected string, got ${got(value)}`
      return value.includes("\0") ? "contains a NUL byte, which cannot be passed to a program" : undefined
    case "boolean":
      return typeof value === "boolean" ? undefined : `expected boolean, got ${got(value)}`
    case "integer":
      if (typeof value !== "number") return `expected integer, got ${got(value)}`
      if (!Number.isFinite(value)) return "must be a finite number"
      return Number.isInteger(value) ? undefined : `expected integer, got ${got(value)}`
    case "number":
      if (typeof value !== "number") return `expected number, got ${got(value)}`
      return Number.isFinite(value) ? undefined : "must be a finite number"
  }
}

/**
 * Checks the model's arguments strictly: each declared parameter must have
 * exactly its declared JSON type (no string for a boolean, no 1.5 for an
 * integer, nothing non-finite), required ones must be present, NUL bytes
 * never reach argv. Keys that are not declared are ignored. Every problem is
 * reported, joined with `; `.
 */
export const validateArguments = (
  definition: ExternalToolDefinition,
  args: JsonObject
): Either.Either<ReadonlyMap<string, ArgumentValue>, string> => {
  const values = new Map<string, ArgumentValue>()
  const problems: Array<string> = []
  for (const parameter of definition.parameters) {
    // Own keys only: a parameter named like an Object.prototype member is not "present" by inheritance.
    if (!Object.hasOwn(args, parameter.name)) {
      if (parameter.required) problems.push(`${parameter.name}: is missing`)
      continue
    }
    const value = args[parameter.name]
    const problem = typeProblem(parameter, value)
    if (problem !== undefined) problems.push(`${parameter.name}: ${problem}`)
    else if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
      values.set(parameter.name, value)
    }
  }
  return problems.length > 0 ? Either.left(problems.join("; ")) : Either.right(values)
}

/**
 * The arguments after the command: literals as written, each placeholder
 * replaced whole by its value (numbers and booleans as JSON writes them),
 * an absent optional parameter by the empty string.
 */
export const buildArgv = (
  definition: ExternalToolDefinition,
  values: ReadonlyMap<string, ArgumentValue>
): ReadonlyArray<string> =>
  definition.argv.map((element) => {
    if (element._tag === "Literal") return element.text
    const value = values.get(element.parameter)
    return value === undefined ? "" : String(value)
  })

/**
 * The passthrough variables set in this process now; read per call so a
 * rotated credential is seen. easyai's own (`EASYAI_*`) never pass, even
 * when a manifest names them.
 */
const passthroughEnv = (names: ReadonlyArray<string>): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const name of names) {
    if (isEasyaiVariable(name)) continue
    const value = process.env[name]
    if (value !== undefined && utf8Length(value) <= maxEnvValueBytes) env[name] = value
  }
  return env
}

/**
 * What the model reads about a finished run. A timeout or a death by signal
 * is always an error; a non-zero exit is one unless the manifest says that
 * command's exit codes are informational.
 */
export const describeResult = (definition: ExternalToolDefinition, result: ProcessResult): ToolResult => {
  const output = outputWithNote(result)
  const failed = result.timedOut || result.exitCode === undefined ||
    (result.exitCode !== 0 && definition.treatNonzeroExitAsError)
  if (!failed) return ToolResult.ok(output)
  const headline = `${definition.name}: ${ending(result, definition.timeoutMillis)}`
  return ToolResult.error(output === "" ? headline : `${headline}\n${output}`)
}


/** Runs one checked call. Never fails: every outcome is a result for the model. */
const runCall = (
  definition: ExternalToolDefinition,
  sandbox: SandboxService,
  values: ReadonlyMap<string, ArgumentValue>
): Effect.Effect<ToolResult> =>
  Effect.suspend(() =>
    sandbox.run({
      command: definition.command,
      args: buildArgv(definition, values),
      cwd: definition.cwd === sandboxCwd ? sandbox.root : definition.cwd,
      env: passthroughEnv(definition.envPassthrough),
      timeout: Duration.millis(definition.timeoutMillis),
      killGrace,
      maxOutputBytes: definition.maxOutputBytes,
      stderr: definition.stderr
    })
  ).pipe(
    Effect.map((result) => describeResult(definition, result)),
    Effect.catchTag("ProcessError", (error) =>
      Effect.succeed(ToolResult.error(`${definition.name}: external_tool: execve failed: ${error.detail}`)))
  )

/** The tool of one validated manifest entry, running its command through `sandbox`. */
export const externalTool = (definition: ExternalToolDefinition, sandbox: SandboxService): Tool.Tool => {
  const schema = parametersSchema(definition)
  const shared = Tool.fromJsonSchema({
    name: definition.name,
    description: definition.description,
    parameters: schema,
    handler: (args) =>
      Either.match(validateArguments(definition, args), {
        onLeft: Tool.fail,
        onRight: (values) => runCall(definition, sandbox, values)
      })
  })
  return {
    ...shared,
    invoke: (raw) =>
      Effect.suspend(() => {
        const parsed = parseArgumentObject(raw)
        // Text that is no JSON object at all is rejected by the shared reader, in its words.
        if (Either.isLeft(parsed)) return shared.invoke(raw)
        const checked = validateArguments(definition, parsed.right)
        return Either.isLeft(checked) ? Effect.succeed(Tool.rejection(definition.name, schema, checked.left)) : shared.invoke(raw)
      })
  }
}

/** {@link externalTool} with the `Sandbox` from the context. */
export const makeExternalTool = (definition: ExternalToolDefinition): Effect.Effect<Tool.Tool, never, Sandbox> =>
  Effect.map(Sandbox, (sandbox) => externalTool(definition, sandbox))
