/**
 * Reading one external-tools manifest: the JSON text an operator wrote,
 * checked rule by rule, into tool definitions the runner can trust.
 *
 * Pure: no file system access. Whether `command` exists and is executable
 * is the loader's check (`load.ts`); everything that can be decided from the
 * text alone is decided here.
 *
 * The checks are written by hand rather than as one `Schema` decode: every
 * rule needs its own message naming the file, the tool and the field, in
 * words an operator can act on, and mapping a `ParseError` back to those
 * messages would take more code than the checks themselves.
 *
 * Problems are collected, not stopped at: an operator fixing a manifest sees
 * every error of the file at once. A file with any error yields no tools.
 *
 * @module
 */
import { Either } from "effect"
import { isEasyaiVariable } from "../../sandbox/toolEnv.js"
import { isObject, parseJson } from "../../../domain/json.js"
import { utf8Length } from "../../../domain/utf8.js"

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

/** The `cwd` token meaning "the sandbox root". */
export const sandboxCwd = "$SANDBOX"

const filePrefix = "EASYAI-"
const fileSuffix = ".tools"

/**
 * Whether a directory entry is a manifest: exactly `EASYAI-<name>.tools`
 * with a non-empty name, case-sensitive. `EASYAI-x.tools.disabled` is not.
 */
export const isManifestFileName = (fileName: string): boolean =>
  fileName.length > filePrefix.length + fileSuffix.length && fileName.startsWith(filePrefix) &&
  fileName.endsWith(fileSuffix) && !fileName.includes("/")

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


const isLetter = (char: string): boolean => (char >= "a" && char <= "z") || (char >= "A" && char <= "Z")
const isDigit = (char: string): boolean => char >= "0" && char <= "9"

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

const identifierRule = "it must start with a letter and continue with up to 63 letters, digits or \"_\""
const parameterTypes: ReadonlyArray<ParameterType> = ["string", "integer", "number", "boolean"]
const isParameterType = (value: unknown): value is ParameterType => parameterTypes.some((type) => type === value)
const typeRule = "use \"string\", \"integer\", \"number\" or \"boolean\""

/** A value as an operator would recognise it in an error message. */
const shown = (value: unknown): string => {
  if (typeof value === "string") return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)
  if (typeof value === "number" || typeof value === "boolean") return String(value)
  if (value === null) return "null"
  if (Array.isArray(value)) return "an array"
  return "an object"
}

const baseName = (path: string): string => path.slice(path.lastIndexOf("/") + 1)


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
const parametersFields: ReadonlyArray<string> = ["type", "properties", "required"]
const propertyFields: ReadonlyArray<string> = ["type", "description"]

const shells: ReadonlyArray<string> = ["sh", "bash", "zsh", "dash", "ksh", "ash", "fish"]
const linkerVariables: ReadonlyArray<string> = [
  "LD_PRELOAD",
  "LD_LIBRARY_PATH",
  "LD_AUDIT",
  "DYLD_INSERT_LIBRARIES",
  "DYLD_LIBRARY_PATH"
]

/** Where the checks of one tool report; `where` names the tool once its name is known. */
interface Report {
  where: string
  readonly error: (message: string) => void
  readonly warn: (message: string) => void
}

/** Reports fields the checks do not know: usually a typo, never silently meaningful. */
const unknownFields = (
  record: JsonRecord,
  known: ReadonlyArray<string>,
  warn: (message: string) => void,
  what: string
): void => {
  for (const key of Object.keys(record)) {
    if (!known.includes(key)) warn(`${what}unknown field ${JSON.stringify(key)} is ignored`)
  }
}

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

const requiredString = (tool: JsonRecord, field: string, report: Report): string | undefined => {
  if (!Object.hasOwn(tool, field)) {
    report.error(`${report.where}: "${field}" is missing`)
    return undefined
  }
  const value = tool[field]
  if (typeof value !== "string") {
    report.error(`${report.where}: "${field}" must be a string, got ${shown(value)}`)
    return undefined
  }
  return value
}

const checkName = (tool: JsonRecord, report: Report): string | undefined => {
  const name = requiredString(tool, "name", report)
  if (name === undefined) return undefined
  if (!isIdentifier(name)) {
    report.error(`${report.where}: name ${shown(name)} is invalid: ${identifierRule}`)
    return undefined
  }
  return name
}

const checkDescription = (tool: JsonRecord, report: Report): string => {
  const description = requiredString(tool, "description", report)
  if (description === undefined) return ""
  const chars = [...description].length
  if (description.trim() === "") {
    report.error(`${report.where}: "description" is empty; tell the model what the tool does and when to use it`)
  } else if (chars > limits.descriptionChars) {
    report.error(`${report.where}: "description" has ${chars} characters, more than ${limits.descriptionChars}`)
  }
  return description
}

const checkCommand = (tool: JsonRecord, report: Report): string => {
  const command = requiredString(tool, "command", report)
  if (command === undefined) return ""
  if (command.includes("\0")) {
    report.error(`${report.where}: "command" contains a NUL byte`)
  } else if (!command.startsWith("/")) {
    report.error(
      `${report.where}: command ${shown(command)} is not an absolute path; ` +
        `write the full path (no PATH search happens), such as "/usr/bin/${baseName(command)}"`
    )
  }
  return command
}

const checkParameters = (tool: JsonRecord, report: Report): ReadonlyArray<ExternalParameter> | undefined => {
  if (!Object.hasOwn(tool, "parameters")) return []
  const parameters = tool["parameters"]
  if (!isObject(parameters)) {
    report.error(
      `${report.where}: "parameters" must be an object such as {"type": "object", "properties": {}}, ` +
        `got ${shown(parameters)}`
    )
    return undefined
  }
  unknownFields(parameters, parametersFields, report.warn, `${report.where}: "parameters": `)
  let valid = true
  const fail = (message: string) => {
    valid = false
    report.error(`${report.where}: ${message}`)
  }
  if (Object.hasOwn(parameters, "type") && parameters["type"] !== "object") {
    fail(`"parameters.type" must be "object", got ${shown(parameters["type"])}`)
  }
  const properties = Object.hasOwn(parameters, "properties") ? parameters["properties"] : {}
  if (!isObject(properties)) {
    fail(`"parameters.properties" must be an object, got ${shown(properties)}`)
    return undefined
  }
  const names = Object.keys(properties)
  if (names.length > limits.parameters) {
    fail(`"parameters.properties" declares ${names.length} parameters, more than ${limits.parameters}`)
  }
  const declared: Array<{ readonly name: string; readonly type: ParameterType; readonly description?: string }> = []
  for (const name of names) {
    if (!isParameterName(name)) {
      fail(
        `parameter ${shown(name)} has an invalid name: ` +
          "it must start with a letter and continue with up to 63 letters, digits, \"_\" or \"-\""
      )
      continue
    }
    const property = properties[name]
    if (!isObject(property)) {
      fail(`parameter "${name}" must be an object such as {"type": "string"}, got ${shown(property)}`)
      continue
    }
    unknownFields(property, propertyFields, report.warn, `${report.where}: parameter "${name}": `)
    const type = property["type"]
    const description = property["description"]
    if (!Object.hasOwn(property, "type")) {
      fail(`parameter "${name}" has no "type"; ${typeRule}`)
    } else if (!isParameterType(type)) {
      fail(`parameter "${name}" has type ${JSON.stringify(type)}; ${typeRule}`)
    } else if (Object.hasOwn(property, "description") && typeof description !== "string") {
      fail(`parameter "${name}": "description" must be a string, got ${shown(description)}`)
    } else {
      declared.push(typeof description === "string" ? { name, type, description } : { name, type })
    }
  }
  const required = new Set<string>()
  if (Object.hasOwn(parameters, "required")) {
    const list = parameters["required"]
    if (!Array.isArray(list)) {
      fail(`"parameters.required" must be an array of parameter names, got ${shown(list)}`)
    } else {
      list.forEach((entry: unknown, index) => {
        if (typeof entry !== "string") {
          fail(`"parameters.required[${index}]" must be a string, got ${shown(entry)}`)
        } else if (!Object.hasOwn(properties, entry)) {
          fail(`"parameters.required" names ${shown(entry)}, which is not a declared parameter`)
        } else {
          required.add(entry)
        }
      })
    }
  }
  if (!valid) return undefined
  return declared.map((parameter) => ({
    name: parameter.name,
    type: parameter.type,
    description: parameter.description,
    required: required.has(parameter.name)
  }))
}

/** The parameter name of `{name}` when `text` is exactly one placeholder, else undefined. */
const placeholderName = (text: string): string | undefined => {
  if (text.length < 3 || !text.startsWith("{") || !text.endsWith("}")) return undefined
  const inner = text.slice(1, -1)
  return inner.includes("{") || inner.includes("}") ? undefined : inner
}

/** The first `{…}` with a non-empty, brace-free inside, if `text` embeds one. */
const embeddedPlaceholder = (text: string): { readonly start: number; readonly end: number } | undefined => {
  let open = -1
  for (let i = 0; i < text.length; i++) {
    const char = text.charAt(i)
    if (char === "{") open = i
    else if (char === "}" && open >= 0 && i > open + 1) return { start: open, end: i + 1 }
    else if (char === "}") open = -1
  }
  return undefined
}

/** Why an element that holds a placeholder among other text is refused, with the split to write instead. */
const embeddedMessage = (label: string, text: string, found: { readonly start: number; readonly end: number }) => {
  const placeholder = text.slice(found.start, found.end)
  const before = text.slice(0, found.start)
  const prefix = before.endsWith("=") ? before.slice(0, -1) : before
  const simple = found.end === text.length && prefix !== "" && !prefix.includes("{") && !prefix.includes("}")
  return simple
    ? `${label} ${shown(text)} embeds a placeholder; split it into two elements: ${JSON.stringify(prefix)}, ${
      JSON.stringify(placeholder)
    }`
    : `${label} ${shown(text)} embeds a placeholder; a placeholder must be a whole element, such as ${
      JSON.stringify(placeholder)
    }`
}

const checkArgv = (
  tool: JsonRecord,
  parameters: ReadonlyArray<ExternalParameter> | undefined,
  report: Report
): ReadonlyArray<ArgvElement> => {
  if (!Object.hasOwn(tool, "argv")) {
    report.error(`${report.where}: "argv" is missing; write [] for a command that takes no arguments`)
    return []
  }
  const argv = tool["argv"]
  if (!Array.isArray(argv)) {
    report.error(`${report.where}: "argv" must be an array of strings, got ${shown(argv)}`)
    return []
  }
  if (argv.length > limits.argvElements) {
    report.error(`${report.where}: "argv" has ${argv.length} elements, more than ${limits.argvElements}`)
    return []
  }
  const elements: Array<ArgvElement> = []
  argv.forEach((element: unknown, index) => {
    const label = `argv[${index}]`
    if (typeof element !== "string") {
      report.error(`${report.where}: ${label} must be a string, got ${shown(element)}`)
      return
    }
    const bytes = utf8Length(element)
    if (bytes > limits.argvElementBytes) {
      report.error(`${report.where}: ${label} has ${bytes} bytes, more than ${limits.argvElementBytes}`)
      return
    }
    if (element.includes("\0")) {
      report.error(`${report.where}: ${label} contains a NUL byte`)
      return
    }
    const name = placeholderName(element)
    if (name !== undefined) {
      // Unknown names are only judged when the parameters themselves were valid.
      if (parameters !== undefined && !parameters.some((parameter) => parameter.name === name)) {
        const declared = parameters.length === 0
          ? "this tool declares no parameters"
          : `declared: ${parameters.map((parameter) => parameter.name).join(", ")}`
        report.error(`${report.where}: ${label} ${shown(element)} names no declared parameter (${declared})`)
        return
      }
      elements.push({ _tag: "Placeholder", parameter: name })
      return
    }
    if (element.includes("{") || element.includes("}")) {
      const found = embeddedPlaceholder(element)
      report.error(
        `${report.where}: ${
          found === undefined
            ? `${label} ${shown(element)} contains "{" or "}"; a literal element cannot contain braces`
            : embeddedMessage(label, element, found)
        }`
      )
      return
    }
    elements.push({ _tag: "Literal", text: element })
  })
  return elements
}

const checkCwd = (tool: JsonRecord, report: Report): string => {
  if (!Object.hasOwn(tool, "cwd")) return sandboxCwd
  const cwd = tool["cwd"]
  if (typeof cwd !== "string") {
    report.error(`${report.where}: "cwd" must be a string, got ${shown(cwd)}`)
  } else if (cwd.includes("\0")) {
    report.error(`${report.where}: "cwd" contains a NUL byte`)
  } else if (cwd !== sandboxCwd && !cwd.startsWith("/")) {
    report.error(`${report.where}: cwd ${shown(cwd)} must be an absolute path or "${sandboxCwd}"`)
  } else {
    return cwd
  }
  return sandboxCwd
}

const checkEnv = (tool: JsonRecord, report: Report): ReadonlyArray<string> => {
  if (!Object.hasOwn(tool, "env_passthrough")) return []
  const names = tool["env_passthrough"]
  if (!Array.isArray(names)) {
    report.error(`${report.where}: "env_passthrough" must be an array of variable names, got ${shown(names)}`)
    return []
  }
  if (names.length > limits.envPassthrough) {
    report.error(`${report.where}: "env_passthrough" has ${names.length} names, more than ${limits.envPassthrough}`)
    return []
  }
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

const checkStderr = (tool: JsonRecord, report: Report): "merge" | "discard" => {
  if (!Object.hasOwn(tool, "stderr")) return "merge"
  const mode = tool["stderr"]
  if (mode === "merge" || mode === "discard") return mode
  report.error(`${report.where}: "stderr" must be "merge" or "discard", got ${shown(mode)}`)
  return "merge"
}

const checkNonzero = (tool: JsonRecord, report: Report): boolean => {
  if (!Object.hasOwn(tool, "treat_nonzero_exit_as_error")) return true
  const flag = tool["treat_nonzero_exit_as_error"]
  if (typeof flag === "boolean") return flag
  report.error(`${report.where}: "treat_nonzero_exit_as_error" must be true or false, got ${shown(flag)}`)
  return true
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
  const name = checkName(entry, report)
  if (name !== undefined) report.where = `tool "${name}"`
  unknownFields(entry, toolFields, report.warn, `${report.where}: `)
  const description = checkDescription(entry, report)
  const command = checkCommand(entry, report)
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
    cwd: checkCwd(entry, report),
    envPassthrough: checkEnv(entry, report),
    stderr: checkStderr(entry, report),
    treatNonzeroExitAsError: checkNonzero(entry, report)
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
 * Fails with every problem found, one message each; a manifest with any
 * problem yields no tools at all.
 */
export const parseManifest = (
  file: string,
  text: string,
  reservedNames: ReadonlyArray<string>
): Either.Either<ParsedManifest, ReadonlyArray<string>> => {
  const size = utf8Length(text)
  if (size > limits.manifestBytes) {
    return Either.left([`${file}: manifest exceeds ${limits.manifestBytes} bytes (it has ${size})`])
  }
  const parsed = parseManifestJson(text)
  if (Either.isLeft(parsed)) return Either.left([`${file}: ${parsed.left}`])
  const manifest = parsed.right
  if (!isObject(manifest)) {
    return Either.left([`${file}: the manifest must be a JSON object such as {"version": 1, "tools": [...]}`])
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
    return Either.left(errors)
  }
  if (!Array.isArray(tools)) {
    errors.push(`${file}: "tools" must be an array, got ${shown(tools)}`)
    return Either.left(errors)
  }
  if (tools.length === 0) {
    errors.push(`${file}: "tools" is empty; declare at least one tool`)
    return Either.left(errors)
  }
  if (tools.length > limits.tools) {
    errors.push(
      `${file}: "tools" has ${tools.length} entries, more than ${limits.tools}; split them over several files`
    )
    return Either.left(errors)
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
  return errors.length > 0 ? Either.left(errors) : Either.right({ tools: definitions, warnings })
}
