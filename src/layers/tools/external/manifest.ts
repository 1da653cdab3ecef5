/**
 * Reading one external-tools manifest: the JSON text an operator wrote,
 * checked rule by rule, into tool definitions the runner can trust.
 *
 * Pure: no file system access. Whether `command` exists and is executable
 * is the loader's check (`load.ts`); everything that can be decided from the
 * text alone is decided here.
 *
 * A tool's scalar fields (name, description, command, cwd, stderr, the
 * non-zero flag) are Schemas whose message annotations name the field in
 * words an operator can act on (`manifestFields.ts`); what depends on other
 * fields or warns rather than fails (placeholders naming declared
 * parameters, clamped limits, duplicate and reserved names, unknown fields)
 * is checked in code, with messages of the same shape.
 *
 * Problems are collected, not stopped at: an operator fixing a manifest sees
 * every error of the file at once. A file with any error yields no tools.
 *
 * @module
 */
import { Either } from "effect"
import { isEasyaiVariable } from "../../sandbox/toolEnv.js"
import { ManifestError } from "../../../domain/errors.js"
import { isObject, parseJson } from "../../../domain/json.js"
import { utf8Length } from "../../../domain/utf8.js"
import { Command, Cwd, decodeField, Description, NonzeroIsError, sandboxCwd, Stderr, ToolName } from "./manifestFields.js"
import { checkArgv, checkParameters } from "./manifestParameters.js"
import {
  type ArgvElement,
  baseName,
  boundedArray,
  type ExternalParameter,
  identifierRule,
  isDigit,
  isIdentifier,
  limits,
  type Report,
  shown,
  unknownFields
} from "./manifestRules.js"

const filePrefix = "EASYAI-"
const fileSuffix = ".tools"

/**
 * Whether a directory entry is a manifest: exactly `EASYAI-<name>.tools`
 * with a non-empty name, case-sensitive. `EASYAI-x.tools.disabled` is not.
 */
export const isManifestFileName = (fileName: string): boolean =>
  fileName.length > filePrefix.length + fileSuffix.length && fileName.startsWith(filePrefix) &&
  fileName.endsWith(fileSuffix) && !fileName.includes("/")

/** A validated manifest entry, with every default applied and every limit clamped. */
export interface ExternalToolDefinition {
  /** The manifest file it came from, for messages. */
  readonly file: string
  readonly name: string
  readonly description: string
  /** An absolute path; existence and the execute bit are checked by the loader. */
  readonly command: string
  readonly argv: ReadonlyArray<ArgvElement>
  /** In declaration order. */
  readonly parameters: ReadonlyArray<ExternalParameter>
  readonly timeoutMillis: number
  readonly maxOutputBytes: number
  /** An absolute path, or {@link sandboxCwd} for the sandbox root. */
  readonly cwd: string
  readonly envPassthrough: ReadonlyArray<string>
  readonly stderr: "merge" | "discard"
  readonly treatNonzeroExitAsError: boolean
}

/** What a manifest that passed every check yields. */
export interface ParsedManifest {
  readonly tools: ReadonlyArray<ExternalToolDefinition>
  /** Observations worth an operator's attention that do not stop the load. */
  readonly warnings: ReadonlyArray<string>
}

type JsonRecord = { readonly [key: string]: unknown }

const topLevelFields: ReadonlyArray<string> = ["version", "tools"]
const toolFields: ReadonlyArray<string> = [
  "name",
  "description",
  "command",
  "argv",
  "parameters",
  "timeout_ms",
  "max_output_bytes",
  "cwd",
  "env_passthrough",
  "stderr",
  "treat_nonzero_exit_as_error"
]

const shells: ReadonlyArray<string> = ["sh", "bash", "zsh", "dash", "ksh", "ash", "fish"]
const linkerVariables: ReadonlyArray<string> = [
  "LD_PRELOAD",
  "LD_LIBRARY_PATH",
  "LD_AUDIT",
  "DYLD_INSERT_LIBRARIES",
  "DYLD_LIBRARY_PATH"
]

/** Locates a `JSON.parse` error ("… at position 11") as a line and column. */
const jsonErrorText = (text: string, message: string): string => {
  const marker = " in JSON at position "
  const at = message.indexOf(marker)
  if (at < 0) return `invalid JSON: ${message}`
  let digits = ""
  for (const char of message.slice(at + marker.length)) {
    if (!isDigit(char)) break
    digits += char
  }
  const position = Math.min(Number(digits), text.length)
  const before = text.slice(0, position)
  const line = before.split("\n").length
  const column = position - (before.lastIndexOf("\n") + 1) + 1
  return `invalid JSON at line ${line}, column ${column}: ${message.slice(0, at)}`
}

const parseManifestJson = (text: string): Either.Either<unknown, string> =>
  Either.mapLeft(parseJson(text), (message) => jsonErrorText(text, message))

/** A bounded integer field: absent gives the default, out of range is clamped with a warning. */
const clampedInteger = (
  tool: JsonRecord,
  field: string,
  unit: string,
  bounds: { readonly min: number; readonly max: number; readonly default: number },
  report: Report
): number => {
  if (!Object.hasOwn(tool, field)) return bounds.default
  const value = tool[field]
  if (typeof value !== "number" || !Number.isInteger(value)) {
    report.error(`${report.where}: "${field}" must be a whole number of ${unit}, got ${shown(value)}`)
    return bounds.default
  }
  if (value < bounds.min) {
    report.warn(`${report.where}: "${field}" ${value} is below ${bounds.min}; using ${bounds.min}`)
    return bounds.min
  }
  if (value > bounds.max) {
    report.warn(`${report.where}: "${field}" ${value} is above ${bounds.max}; using ${bounds.max}`)
    return bounds.max
  }
  return value
}

const checkEnv = (tool: JsonRecord, report: Report): ReadonlyArray<string> => {
  if (!Object.hasOwn(tool, "env_passthrough")) return []
  const names = boundedArray(tool["env_passthrough"], "env_passthrough", "variable names", "names", limits.envPassthrough, report)
  if (names === undefined) return []
  const valid: Array<string> = []
  names.forEach((name: unknown, index) => {
    if (typeof name !== "string") {
      report.error(`${report.where}: env_passthrough[${index}] must be a string, got ${shown(name)}`)
    } else if (!isIdentifier(name)) {
      report.error(
        `${report.where}: env_passthrough[${index}] ${shown(name)} is not a valid variable name: ${identifierRule}`
      )
    } else if (isEasyaiVariable(name)) {
      report.warn(
        `${report.where}: env_passthrough names "${name}", one of easyai's own variables (EASYAI_*, its API keys among them), ` +
          "which never reach a tool; it is left out"
      )
    } else {
      if (linkerVariables.includes(name)) {
        report.warn(
          `${report.where}: env_passthrough lets "${name}" through, which steers the dynamic linker; ` +
            "remove it unless the command really needs it"
        )
      }
      if (!valid.includes(name)) valid.push(name)
    }
  })
  return valid
}

/** Sanity checks on a valid tool: the shapes that quietly undo what the manifest is for. */
const sanityWarnings = (tool: ExternalToolDefinition, report: Report): void => {
  if (shells.includes(baseName(tool.command))) {
    const dashC = tool.argv.findIndex((element) => element._tag === "Literal" && element.text === "-c")
    const wrapsShell = dashC >= 0 && tool.argv.slice(dashC + 1).some((element) => element._tag === "Placeholder")
    report.warn(
      wrapsShell
        ? `${report.where}: runs the shell ${shown(tool.command)} with -c and a placeholder, ` +
          "which hands the model a shell; declare focused tools instead"
        : `${report.where}: command ${shown(tool.command)} is a shell; ` +
          "review how it interprets the arguments it receives"
    )
  }
  for (const parameter of tool.parameters) {
    const used = tool.argv.some((element) => element._tag === "Placeholder" && element.parameter === parameter.name)
    if (!used) report.warn(`${report.where}: parameter "${parameter.name}" is declared but not used in argv`)
  }
}

const checkTool = (
  file: string,
  entry: unknown,
  index: number,
  errors: Array<string>,
  warnings: Array<string>
): ExternalToolDefinition | undefined => {
  const before = errors.length
  const report: Report = {
    where: `tools[${index}]`,
    error: (message) => errors.push(`${file}: ${message}`),
    warn: (message) => warnings.push(`${file}: ${message}`)
  }
  if (!isObject(entry)) {
    report.error(`tools[${index}] must be an object, got ${shown(entry)}`)
    return undefined
  }
  const name = decodeField(entry, "name", ToolName, report, true)
  if (name !== undefined) report.where = `tool "${name}"`
  unknownFields(entry, toolFields, report.warn, `${report.where}: `)
  const description = decodeField(entry, "description", Description, report, true) ?? ""
  const command = decodeField(entry, "command", Command, report, true) ?? ""
  const parameters = checkParameters(entry, report)
  const argv = checkArgv(entry, parameters, report)
  const definition: ExternalToolDefinition = {
    file,
    name: name ?? "",
    description,
    command,
    argv,
    parameters: parameters ?? [],
    timeoutMillis: clampedInteger(entry, "timeout_ms", "milliseconds", limits.timeoutMillis, report),
    maxOutputBytes: clampedInteger(entry, "max_output_bytes", "bytes", limits.maxOutputBytes, report),
    cwd: decodeField(entry, "cwd", Cwd, report, false) ?? sandboxCwd,
    envPassthrough: checkEnv(entry, report),
    stderr: decodeField(entry, "stderr", Stderr, report, false) ?? "merge",
    treatNonzeroExitAsError: decodeField(entry, "treat_nonzero_exit_as_error", NonzeroIsError, report, false) ?? true
  }
  if (errors.length > before || name === undefined) return undefined
  sanityWarnings(definition, report)
  return definition
}

/**
 * Checks the text of one manifest. `file` names it in every message (the
 * loader passes the file name, e.g. `EASYAI-git.tools`); `reservedNames`
 * are the names already taken by built-in or registered tools.
 *
 * Fails with a `ManifestError` holding every problem found, one message
 * each; a manifest with any problem yields no tools at all.
 */
export const parseManifest = (
  file: string,
  text: string,
  reservedNames: ReadonlyArray<string>
): Either.Either<ParsedManifest, ManifestError> => {
  const refused = (problems: ReadonlyArray<string>) => Either.left(new ManifestError({ file, problems }))
  const size = utf8Length(text)
  if (size > limits.manifestBytes) {
    return refused([`${file}: manifest exceeds ${limits.manifestBytes} bytes (it has ${size})`])
  }
  const parsed = parseManifestJson(text)
  if (Either.isLeft(parsed)) return refused([`${file}: ${parsed.left}`])
  const manifest = parsed.right
  if (!isObject(manifest)) {
    return refused([`${file}: the manifest must be a JSON object such as {"version": 1, "tools": [...]}`])
  }
  const errors: Array<string> = []
  const warnings: Array<string> = []
  unknownFields(manifest, topLevelFields, (message) => warnings.push(`${file}: ${message}`), "")
  if (!Object.hasOwn(manifest, "version")) {
    errors.push(`${file}: "version" is missing; write "version": 1`)
  } else if (manifest["version"] !== 1) {
    errors.push(`${file}: "version" must be 1, got ${shown(manifest["version"])}`)
  }
  const tools = manifest["tools"]
  if (!Object.hasOwn(manifest, "tools")) {
    errors.push(`${file}: "tools" is missing; declare the tools as an array`)
    return refused(errors)
  }
  if (!Array.isArray(tools)) {
    errors.push(`${file}: "tools" must be an array, got ${shown(tools)}`)
    return refused(errors)
  }
  if (tools.length === 0) {
    errors.push(`${file}: "tools" is empty; declare at least one tool`)
    return refused(errors)
  }
  if (tools.length > limits.tools) {
    errors.push(
      `${file}: "tools" has ${tools.length} entries, more than ${limits.tools}; split them over several files`
    )
    return refused(errors)
  }
  const definitions: Array<ExternalToolDefinition> = []
  const firstIndex = new Map<string, number>()
  tools.forEach((entry: unknown, index) => {
    const definition = checkTool(file, entry, index, errors, warnings)
    if (definition === undefined) return
    const earlier = firstIndex.get(definition.name)
    if (earlier !== undefined) {
      errors.push(`${file}: tool "${definition.name}" is declared twice, at tools[${earlier}] and tools[${index}]`)
      return
    }
    firstIndex.set(definition.name, index)
    if (reservedNames.includes(definition.name)) {
      errors.push(
        `${file}: tool "${definition.name}" collides with a built-in tool of the same name; choose another name`
      )
      return
    }
    definitions.push(definition)
  })
  return errors.length > 0 ? refused(errors) : Either.right({ tools: definitions, warnings })
}
