/**
 * The checks of a manifest tool's `parameters` and `argv`: the parameters it
 * declares, and the argv elements that are literal text or exactly one
 * placeholder of a declared parameter.
 *
 * @module
 */
import { Either, Schema } from "effect"
import { isObject } from "../../../domain/json.js"
import { utf8Length } from "../../../domain/utf8.js"
import { firstProblem, ParameterProperty } from "./manifestFields.js"
import {
  type ArgvElement,
  boundedArray,
  type ExternalParameter,
  isParameterName,
  limits,
  type ParameterType,
  type Report,
  shown,
  unknownFields
} from "./manifestRules.js"

type JsonRecord = { readonly [key: string]: unknown }

const parametersFields: ReadonlyArray<string> = ["type", "properties", "required"]
const propertyFields: ReadonlyArray<string> = ["type", "description"]

/** The declared parameters, or `undefined` when they are not valid (each problem reported). */
export const checkParameters = (tool: JsonRecord, report: Report): ReadonlyArray<ExternalParameter> | undefined => {
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
    const decoded = Schema.decodeUnknownEither(ParameterProperty(name))(property)
    if (Either.isLeft(decoded)) fail(firstProblem(decoded.left))
    else declared.push({ name, ...decoded.right })
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

/** The argv elements: literals and whole-element placeholders of declared parameters. */
export const checkArgv = (
  tool: JsonRecord,
  parameters: ReadonlyArray<ExternalParameter> | undefined,
  report: Report
): ReadonlyArray<ArgvElement> => {
  if (!Object.hasOwn(tool, "argv")) {
    report.error(`${report.where}: "argv" is missing; write [] for a command that takes no arguments`)
    return []
  }
  const argv = boundedArray(tool["argv"], "argv", "strings", "elements", limits.argvElements, report)
  if (argv === undefined) return []
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
