/**
 * A skill's `SKILL.md`: YAML frontmatter with `name` and `description`, then
 * a Markdown body. The names and limits a skill must respect, and the pure
 * check of one file's text ({@link parseSkillFile}).
 *
 * @module
 */
import { Either } from "effect"
import { parseDocument } from "yaml"
import { sanitizeAddendum, sanitizeSingleLine } from "../../domain/Sanitize.js"
import { errorText } from "../../domain/errorText.js"
import { SkillError } from "../../domain/errors.js"
import { isObject } from "../../domain/json.js"
import { utf8Length } from "../../domain/utf8.js"

/** What the system prompt carries: every skill's instructions, or a list plus `read_skill`. */
export type SkillsMode = "full" | "readOnDemand"

/** The limits a skill must respect. */
export const skillLimits = {
  /** A `SKILL.md` file, frontmatter included, in bytes. */
  skillFileBytes: 65_536,
  /** The instructions after the frontmatter, trimmed, in UTF-8 bytes. */
  bodyBytes: 32_768,
  /** A skill name, in characters. */
  nameChars: 64,
  /** A description, in characters. */
  descriptionChars: 1024,
  /** The whole skills section of the system prompt, in UTF-8 bytes. */
  systemTextBytes: 65_536
} as const

/** The name of the on-demand tool, reserved: no skill tool may take it. */
export const readSkillName = "read_skill"

/** The file names inside a skill folder. */
export const skillFileName = "SKILL.md"
/** The optional tool descriptor inside a skill folder. */
export const toolsFileName = "tools.json"

/** The text of a `SKILL.md`, checked. */
export interface SkillDocument {
  readonly name: string
  readonly description: string
  /** The Markdown after the frontmatter, trimmed. */
  readonly body: string
}

const isAlphanumeric = (char: string): boolean =>
  (char >= "a" && char <= "z") || (char >= "A" && char <= "Z") || (char >= "0" && char <= "9")

/** Whether `name` can name a skill: a letter or digit, then up to 63 letters, digits, `-` or `_`. */
export const isSkillName = (name: string): boolean =>
  name.length >= 1 && name.length <= skillLimits.nameChars && isAlphanumeric(name.charAt(0)) &&
  [...name].every((char) => isAlphanumeric(char) || char === "-" || char === "_")

/** How a valid skill name is spelled, for messages. */
export const skillNameRule = "use a letter or digit, then up to 63 letters, digits, \"-\" or \"_\""

/** A value as an author would recognise it in an error message. */
export const shown = (value: unknown): string => {
  if (typeof value === "string") return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)
  if (typeof value === "number" || typeof value === "boolean") return String(value)
  if (value === null || value === undefined) return "nothing"
  if (Array.isArray(value)) return "a list"
  return "a mapping"
}

/** The length of `text` in UTF-8 bytes. */

const frontmatterShape = "the file must start with a line \"---\", then YAML with \"name\" and \"description\", " +
  "then a line \"---\", then the instructions"

/** Line and column (1-based) of `offset` in `text`. */
const lineAndColumn = (text: string, offset: number): { readonly line: number; readonly column: number } => {
  const before = text.slice(0, Math.max(0, Math.min(offset, text.length)))
  return { line: before.split("\n").length, column: before.length - (before.lastIndexOf("\n") + 1) + 1 }
}

/** The YAML frontmatter as a value, or the messages of why it is not one. */
const parseYaml = (label: string, yaml: string): Either.Either<unknown, ReadonlyArray<string>> => {
  try {
    const document = parseDocument(yaml, { prettyErrors: false })
    if (document.errors.length > 0) {
      return Either.left(document.errors.map((error) => {
        // Line 1 of the file is the opening "---".
        const at = lineAndColumn(yaml, error.pos[0])
        const message = error.message.split("\n")[0] ?? error.message
        return `${label}: invalid YAML in the frontmatter at line ${at.line + 1}, column ${at.column}: ${message}`
      }))
    }
    const value: unknown = document.toJS({ maxAliasCount: 100 })
    return Either.right(value)
  } catch (error) {
    return Either.left([`${label}: invalid YAML in the frontmatter: ${errorText(error)}`])
  }
}

/**
 * Checks the text of one `SKILL.md`. `label` names the file in every
 * message; `folderName` is the name the frontmatter must repeat. Pure.
 *
 * Fails with a `SkillError` holding every problem found, one message each.
 */
export const parseSkillFile = (
  label: string,
  text: string,
  folderName: string
): Either.Either<SkillDocument, SkillError> => {
  const refused = (problems: ReadonlyArray<string>) => Either.left(new SkillError({ file: label, problems }))
  const lines = (text.startsWith("\uFEFF") ? text.slice(1) : text).split("\n")
  const isDelimiter = (line: string | undefined) => line !== undefined && line.trimEnd() === "---"
  if (!isDelimiter(lines[0])) return refused([`${label}: no frontmatter: ${frontmatterShape}`])
  const close = lines.findIndex((line, index) => index > 0 && isDelimiter(line))
  if (close < 0) {
    return refused([`${label}: the frontmatter is not closed: add a line "---" after its YAML`])
  }
  const parsed = parseYaml(label, lines.slice(1, close).join("\n"))
  if (Either.isLeft(parsed)) return refused(parsed.left)
  const frontmatter = parsed.right
  if (!isObject(frontmatter)) {
    return refused([
      `${label}: the frontmatter must be a YAML mapping with "name" and "description", got ${shown(frontmatter)}`
    ])
  }
  const errors: Array<string> = []
  const name = frontmatter["name"]
  if (!Object.hasOwn(frontmatter, "name")) {
    errors.push(`${label}: "name" is missing from the frontmatter; write name: ${folderName}`)
  } else if (name === null) {
    errors.push(`${label}: "name" is empty; write name: ${folderName}`)
  } else if (typeof name !== "string") {
    errors.push(`${label}: "name" must be a string, got ${shown(name)}`)
  } else if (name !== folderName) {
    errors.push(
      `${label}: name ${shown(name)} does not match the folder name ${shown(folderName)}; ` +
        "rename one of them so they agree"
    )
  }
  const description = frontmatter["description"]
  if (!Object.hasOwn(frontmatter, "description")) {
    errors.push(`${label}: "description" is missing from the frontmatter; say what the skill does and when to use it`)
  } else if (description === null) {
    errors.push(`${label}: "description" is empty; say what the skill does and when to use it`)
  } else if (typeof description !== "string") {
    errors.push(`${label}: "description" must be a string, got ${shown(description)}`)
  } else if (description.trim() === "") {
    errors.push(`${label}: "description" is empty; say what the skill does and when to use it`)
  } else if ([...description].length > skillLimits.descriptionChars) {
    errors.push(
      `${label}: "description" has ${[...description].length} characters, more than ${skillLimits.descriptionChars}`
    )
  }
  const body = lines.slice(close + 1).join("\n").trim()
  const bodyBytes = utf8Length(body)
  if (body === "") {
    errors.push(`${label}: there are no instructions after the frontmatter`)
  } else if (bodyBytes > skillLimits.bodyBytes) {
    errors.push(`${label}: the instructions have ${bodyBytes} bytes, more than ${skillLimits.bodyBytes}; shorten them`)
  }
  if (errors.length > 0 || typeof description !== "string") return refused(errors)
  return Either.right({
    name: folderName,
    description: sanitizeSingleLine(description.trim(), skillLimits.descriptionChars),
    body: sanitizeAddendum(body, skillLimits.bodyBytes)
  })
}
