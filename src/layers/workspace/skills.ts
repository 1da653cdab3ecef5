/**
 * Skills: folders of task instructions the model can use, each a
 * `<dir>/<name>/SKILL.md` (YAML frontmatter with `name` and `description`,
 * then a Markdown body), optionally with a `tools.json` descriptor of
 * programs the skill brings.
 *
 * Loading is done once and never fails: every problem is a message in
 * `errors`, naming the file it is about, and the skill it concerns is
 * skipped whole (its text and its tools), while the other skills load.
 *
 * - Directories are read in the order given; a skill folder in a later
 *   directory replaces the one of the same name in an earlier directory,
 *   even when the later one turns out to be broken (then neither loads, so a
 *   typo in an override never silently brings back the version it replaced).
 * - The frontmatter `name` must equal the folder name: a skill has one
 *   identity, used for overrides, for the prompt and for `read_skill`.
 * - Skills are listed in name order.
 *
 * Two modes decide what reaches the system prompt: `full` puts every skill's
 * instructions there; `readOnDemand` puts a compact `- name: description`
 * list and adds a `read_skill(skill_name)` tool that returns the
 * instructions. Either way the skills section is capped at
 * {@link skillLimits}`.systemTextBytes`; a skill that does not fit is
 * reported and skipped.
 *
 * `tools.json` is an external-tools manifest (see `docs/external-tools.md`),
 * checked by the same `parseManifest` and run by the same `externalTool`
 * (no shell, absolute command, explicit environment, timeout, output cap),
 * with two differences: a `command` with a `/` that does not start with one
 * (`scripts/search.sh`) is relative to the skill folder, and every command
 * must pass the operator's allow-list (see {@link SkillsOptions}).
 *
 * @module
 */
import { constants } from "node:fs"
import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import { Effect, Either, Schema } from "effect"
import { parseDocument } from "yaml"
import { closestNames } from "../../domain/closestNames.js"
import { sanitizeAddendum, sanitizeSingleLine } from "../../domain/Sanitize.js"
import * as Tool from "../../domain/Tool.js"
import { Sandbox } from "../../services/Sandbox.js"
import {
  type ExternalToolDefinition,
  limits as manifestLimits,
  type ParsedManifest,
  parseManifest
} from "../tools/external/manifest.js"
import { externalTool } from "../tools/external/run.js"
import { readTextFile } from "./agentsFile.js"

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

/** How the operator lets skills run programs. */
export interface SkillsOptions {
  /**
   * Absolute paths of host programs a `tools.json` may name as `command`,
   * compared after normalizing (`/usr/bin/git`). Default: none.
   */
  readonly allowedCommands?: ReadonlyArray<string>
  /**
   * Whether a `tools.json` may run programs shipped inside its own skill
   * folder (after symbolic links are resolved). Default false: a skill
   * folder often comes from elsewhere, and running its scripts is a choice.
   */
  readonly allowScripts?: boolean
  /** Tool names already taken (built-in and registered tools); `read_skill` is always reserved. */
  readonly reservedNames?: ReadonlyArray<string>
}

/** A loaded skill, as the operator may want to list it. */
export interface SkillInfo {
  readonly name: string
  readonly description: string
  /** The folder it was loaded from. */
  readonly folder: string
  /** The names of the tools its `tools.json` declared. */
  readonly tools: ReadonlyArray<string>
}

/** What a load produced. */
export interface SkillsLoad {
  /** The skills that loaded, in name order. */
  readonly skills: ReadonlyArray<SkillInfo>
  /** The skills section to put in the system prompt; undefined when no skill loaded. */
  readonly systemText: string | undefined
  /** The skills' tools, plus `read_skill` first in `readOnDemand` mode when any skill loaded. */
  readonly tools: ReadonlyArray<Tool.Tool>
  /** One message per problem, each naming the file or folder it is about. */
  readonly errors: ReadonlyArray<string>
  /** Observations that did not stop a skill from loading (overrides, manifest warnings). */
  readonly warnings: ReadonlyArray<string>
}

/** The text of a `SKILL.md`, checked. */
export interface SkillDocument {
  readonly name: string
  readonly description: string
  /** The Markdown after the frontmatter, trimmed. */
  readonly body: string
}

type JsonRecord = { readonly [key: string]: unknown }

const isRecord = (value: unknown): value is JsonRecord =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const isAlphanumeric = (char: string): boolean =>
  (char >= "a" && char <= "z") || (char >= "A" && char <= "Z") || (char >= "0" && char <= "9")

/** Whether `name` can name a skill: a letter or digit, then up to 63 letters, digits, `-` or `_`. */
export const isSkillName = (name: string): boolean =>
  name.length >= 1 && name.length <= skillLimits.nameChars && isAlphanumeric(name.charAt(0)) &&
  [...name].every((char) => isAlphanumeric(char) || char === "-" || char === "_")

const skillNameRule = "use a letter or digit, then up to 63 letters, digits, \"-\" or \"_\""

/** A value as an author would recognise it in an error message. */
const shown = (value: unknown): string => {
  if (typeof value === "string") return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)
  if (typeof value === "number" || typeof value === "boolean") return String(value)
  if (value === null || value === undefined) return "nothing"
  if (Array.isArray(value)) return "a list"
  return "a mapping"
}

const utf8Bytes = (text: string): number => Buffer.byteLength(text, "utf8")

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error))

// boundary: node's errors carry a `code`, which their type does not declare
const errorCode = (error: unknown): unknown =>
  typeof error === "object" && error !== null ? (error as { readonly code?: unknown }).code : undefined

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
 * Fails with every problem found, one message each.
 */
export const parseSkillFile = (
  label: string,
  text: string,
  folderName: string
): Either.Either<SkillDocument, ReadonlyArray<string>> => {
  const lines = (text.startsWith("\uFEFF") ? text.slice(1) : text).split("\n")
  const isDelimiter = (line: string | undefined) => line !== undefined && line.trimEnd() === "---"
  if (!isDelimiter(lines[0])) return Either.left([`${label}: no frontmatter: ${frontmatterShape}`])
  const close = lines.findIndex((line, index) => index > 0 && isDelimiter(line))
  if (close < 0) {
    return Either.left([`${label}: the frontmatter is not closed: add a line "---" after its YAML`])
  }
  const parsed = parseYaml(label, lines.slice(1, close).join("\n"))
  if (Either.isLeft(parsed)) return Either.left(parsed.left)
  const frontmatter = parsed.right
  if (!isRecord(frontmatter)) {
    return Either.left([
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
  const bodyBytes = utf8Bytes(body)
  if (body === "") {
    errors.push(`${label}: there are no instructions after the frontmatter`)
  } else if (bodyBytes > skillLimits.bodyBytes) {
    errors.push(`${label}: the instructions have ${bodyBytes} bytes, more than ${skillLimits.bodyBytes}; shorten them`)
  }
  if (errors.length > 0 || typeof description !== "string") return Either.left(errors)
  return Either.right({
    name: folderName,
    description: sanitizeSingleLine(description.trim(), skillLimits.descriptionChars),
    body: sanitizeAddendum(body, skillLimits.bodyBytes)
  })
}

// ---------------------------------------------------------------------------
// tools.json

/**
 * Makes relative commands absolute: a `command` containing `/` but not
 * starting with it is a path inside the skill folder. Anything the rewrite
 * does not understand is left for `parseManifest` to report.
 */
const resolveRelativeCommands = (
  label: string,
  text: string,
  folder: string
): Either.Either<string, ReadonlyArray<string>> => {
  let manifest: unknown
  try {
    manifest = JSON.parse(text)
  } catch {
    return Either.right(text) // parseManifest locates the syntax error in the original text
  }
  if (!isRecord(manifest) || !Array.isArray(manifest["tools"])) return Either.right(text)
  const errors: Array<string> = []
  const tools = manifest["tools"].map((entry: unknown, index) => {
    if (!isRecord(entry)) return entry
    const command = entry["command"]
    if (typeof command !== "string" || command.startsWith("/") || !command.includes("/")) return entry
    const resolved = nodePath.resolve(folder, command)
    if (!resolved.startsWith(folder + nodePath.sep)) {
      errors.push(`${label}: tools[${index}]: command ${shown(command)} leaves the skill folder`)
      return entry
    }
    return { ...entry, command: resolved }
  })
  return errors.length > 0 ? Either.left(errors) : Either.right(JSON.stringify({ ...manifest, tools }))
}

/**
 * Checks a `tools.json` text: relative commands resolved against `folder`,
 * then the external-tools manifest rules. Pure.
 */
export const parseSkillTools = (
  label: string,
  text: string,
  folder: string,
  reservedNames: ReadonlyArray<string>
): Either.Either<ParsedManifest, ReadonlyArray<string>> =>
  Either.flatMap(
    resolveRelativeCommands(label, text.startsWith("\uFEFF") ? text.slice(1) : text, folder),
    (resolved) => parseManifest(label, resolved, reservedNames)
  )

const isInside = (folder: string, path: string): boolean => path.startsWith(folder + nodePath.sep)

/** The on-disk and allow-list checks of one command. Never rejects. */
const checkCommand = async (
  label: string,
  definition: ExternalToolDefinition,
  folder: string,
  options: SkillsOptions,
  errors: Array<string>,
  warnings: Array<string>
): Promise<void> => {
  const where = `${label}: tool "${definition.name}"`
  const command = JSON.stringify(definition.command)
  let real: string
  try {
    real = await fs.realpath(definition.command)
  } catch (error) {
    errors.push(
      errorCode(error) === "ENOENT"
        ? `${where}: command ${command} does not exist`
        : `${where}: command ${command} cannot be checked: ${errorText(error)}`
    )
    return
  }
  const listed = (options.allowedCommands ?? []).some((allowed) =>
    nodePath.normalize(allowed) === nodePath.normalize(definition.command)
  )
  if (!listed) {
    const realFolder = await fs.realpath(folder).catch(() => folder)
    const shipped = isInside(realFolder, real)
    if (shipped && options.allowScripts !== true) {
      errors.push(
        `${where}: command ${command} is a program shipped with the skill; ` +
          "such programs run only when the operator enables allowScripts"
      )
      return
    }
    if (!shipped) {
      errors.push(
        `${where}: command ${command} is not allowed: the operator must list it in allowedCommands` +
          (options.allowScripts === true ? "" : ", or ship it in the skill folder and enable allowScripts")
      )
      return
    }
  }
  try {
    const stats = await fs.stat(real)
    if (!stats.isFile()) {
      errors.push(`${where}: command ${command} is not a regular file`)
      return
    }
    await fs.access(real, constants.X_OK).then(
      () => {
        if ((stats.mode & 0o002) !== 0) {
          warnings.push(`${where}: command ${command} is writable by every user; anyone on the host can replace it`)
        }
      },
      () => errors.push(`${where}: command ${command} is not executable`)
    )
  } catch (error) {
    errors.push(`${where}: command ${command} cannot be checked: ${errorText(error)}`)
  }
}

// ---------------------------------------------------------------------------
// Discovery and loading

/** A skill folder that won its name, and the folders of the same name it replaced. */
interface Candidate {
  readonly name: string
  /** Absolute. */
  readonly folder: string
  readonly overrides: ReadonlyArray<string>
}

interface Discovery {
  readonly candidates: ReadonlyArray<Candidate>
  readonly errors: ReadonlyArray<string>
}

const discover = async (directories: ReadonlyArray<string>): Promise<Discovery> => {
  const byName = new Map<string, Candidate>()
  const errors: Array<string> = []
  const seen = new Set<string>()
  for (const given of directories) {
    const directory = nodePath.resolve(given)
    if (seen.has(directory)) continue
    seen.add(directory)
    let entries: Array<string>
    try {
      entries = (await fs.readdir(directory)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    } catch (error) {
      const shownDirectory = JSON.stringify(directory)
      const code = errorCode(error)
      errors.push(
        code === "ENOENT"
          ? `skills directory ${shownDirectory} does not exist`
          : code === "ENOTDIR"
          ? `skills directory ${shownDirectory} is not a directory`
          : `cannot read skills directory ${shownDirectory}: ${errorText(error)}`
      )
      continue
    }
    for (const entry of entries) {
      if (entry.startsWith(".")) continue
      const folder = nodePath.join(directory, entry)
      const isDirectory = await fs.stat(folder).then((stats) => stats.isDirectory(), () => false)
      if (!isDirectory) continue // loose files (a README) sit beside skill folders
      if (!isSkillName(entry)) {
        errors.push(
          `${folder}: ${JSON.stringify(entry)} is not a valid skill name: ${skillNameRule}; the folder is skipped`
        )
        continue
      }
      const earlier = byName.get(entry)
      byName.set(entry, {
        name: entry,
        folder,
        overrides: earlier === undefined ? [] : [...earlier.overrides, earlier.folder]
      })
    }
  }
  const candidates = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return { candidates, errors }
}

/** A skill that passed every check of its own. */
interface LoadedSkill {
  readonly candidate: Candidate
  readonly document: SkillDocument
  readonly definitions: ReadonlyArray<ExternalToolDefinition>
  readonly toolsLabel: string
}

interface SkillOutcome {
  readonly skill: LoadedSkill | undefined
  readonly errors: ReadonlyArray<string>
  readonly warnings: ReadonlyArray<string>
}

const failed = (errors: ReadonlyArray<string>, warnings: ReadonlyArray<string> = []): SkillOutcome => ({
  skill: undefined,
  errors,
  warnings
})

/** What a skill's `tools.json` yields; any error means no tools and no skill. */
interface ToolsOutcome {
  readonly definitions: ReadonlyArray<ExternalToolDefinition>
  readonly errors: ReadonlyArray<string>
  readonly warnings: ReadonlyArray<string>
}

const noTools = (errors: ReadonlyArray<string>, warnings: ReadonlyArray<string> = []): ToolsOutcome => ({
  definitions: [],
  errors,
  warnings
})

const loadTools = (candidate: Candidate, options: SkillsOptions): Effect.Effect<ToolsOutcome> => {
  const label = nodePath.join(candidate.folder, toolsFileName)
  return Effect.flatMap(readTextFile(label, manifestLimits.manifestBytes), (read): Effect.Effect<ToolsOutcome> => {
    if (read._tag === "Missing") return Effect.succeed(noTools([]))
    if (read._tag === "Problem") return Effect.succeed(noTools([`${label}: ${read.detail}`]))
    if (!read.complete) {
      const limit = manifestLimits.manifestBytes
      return Effect.succeed(noTools([`${label}: manifest exceeds ${limit} bytes (it has ${read.size})`]))
    }
    const reserved = [readSkillName, ...(options.reservedNames ?? [])]
    const parsed = parseSkillTools(label, read.text, candidate.folder, reserved)
    if (Either.isLeft(parsed)) return Effect.succeed(noTools(parsed.left))
    return Effect.promise(async () => { // never rejects: checkCommand catches everything
      const errors: Array<string> = []
      const warnings: Array<string> = [...parsed.right.warnings]
      for (const definition of parsed.right.tools) {
        await checkCommand(label, definition, candidate.folder, options, errors, warnings)
      }
      return errors.length > 0 ? noTools(errors, warnings) : { definitions: parsed.right.tools, errors, warnings }
    })
  })
}

const loadSkill = (candidate: Candidate, options: SkillsOptions): Effect.Effect<SkillOutcome> =>
  Effect.gen(function*() {
    const label = nodePath.join(candidate.folder, skillFileName)
    const read = yield* readTextFile(label, skillLimits.skillFileBytes)
    if (read._tag === "Missing") return failed([`${label}: missing; every skill folder needs a ${skillFileName}`])
    if (read._tag === "Problem") return failed([`${label}: ${read.detail}`])
    if (!read.complete) {
      return failed([`${label}: the file has ${read.size} bytes, more than ${skillLimits.skillFileBytes}`])
    }
    const document = parseSkillFile(label, read.text, candidate.name)
    const tools = yield* loadTools(candidate, options)
    const errors = [...(Either.isLeft(document) ? document.left : []), ...tools.errors]
    if (Either.isLeft(document) || errors.length > 0) return failed(errors, tools.warnings)
    return {
      skill: {
        candidate,
        document: document.right,
        definitions: tools.definitions,
        toolsLabel: nodePath.join(candidate.folder, toolsFileName)
      },
      errors: [],
      warnings: tools.warnings
    }
  })

// ---------------------------------------------------------------------------
// Rendering

const fullIntro = "# SKILLS\nYou have access to the following skills. Use them when relevant."
const compactIntro = `# SKILLS
These skills hold instructions for specific tasks. When a task clearly matches one, call ${readSkillName} with its
name to load its instructions before you act, then follow them.

Available skills:`

/** The section text one skill adds, in the given mode. */
const entryText = (document: SkillDocument, mode: SkillsMode): string =>
  mode === "full"
    ? `## ${document.name}\n${document.description}\n\n${document.body}`
    : `- ${document.name}: ${document.description}`

const renderSection = (documents: ReadonlyArray<SkillDocument>, mode: SkillsMode): string | undefined => {
  if (documents.length === 0) return undefined
  const entries = documents.map((document) => entryText(document, mode))
  const text = mode === "full" ? [fullIntro, ...entries].join("\n\n") : [compactIntro, ...entries].join("\n")
  return sanitizeAddendum(text, skillLimits.systemTextBytes) // a seatbelt: every entry was budgeted
}

/** Accepts skills in name order, refusing tool-name clashes and what no longer fits the section. */
const combine = (outcomes: ReadonlyArray<readonly [Candidate, SkillOutcome]>, mode: SkillsMode) => {
  const accepted: Array<LoadedSkill> = []
  const errors: Array<string> = []
  const warnings: Array<string> = []
  const toolOwners = new Map<string, string>()
  let used = utf8Bytes(mode === "full" ? fullIntro : compactIntro)
  for (const [candidate, outcome] of outcomes) {
    errors.push(...outcome.errors)
    warnings.push(...outcome.warnings)
    const replaced = candidate.overrides.map((folder) => JSON.stringify(folder)).join(", ")
    const skill = outcome.skill
    if (skill === undefined) {
      if (replaced !== "") {
        errors.push(
          `skill "${candidate.name}" is not loaded: ${JSON.stringify(candidate.folder)} overrides ${replaced}, ` +
            "and an override that fails to load replaces the skill all the same"
        )
      }
      continue
    }
    const clashes = skill.definitions.flatMap((definition) => {
      const owner = toolOwners.get(definition.name)
      return owner === undefined
        ? []
        : [
          `${skill.toolsLabel}: tool "${definition.name}" is already declared by skill "${owner}"; ` +
          "choose another name"
        ]
    })
    if (clashes.length > 0) {
      errors.push(...clashes)
      continue
    }
    const cost = utf8Bytes(entryText(skill.document, mode)) + (mode === "full" ? 2 : 1)
    if (used + cost > skillLimits.systemTextBytes) {
      errors.push(
        `skill "${candidate.name}" (${candidate.folder}) is not loaded: the skills section of the system prompt ` +
          `would exceed ${skillLimits.systemTextBytes} bytes` +
          (mode === "full" ? "; use the readOnDemand mode, or fewer or shorter skills" : "; use fewer skills")
      )
      continue
    }
    used += cost
    if (replaced !== "") {
      warnings.push(`skill "${candidate.name}": ${JSON.stringify(candidate.folder)} overrides ${replaced}`)
    }
    for (const definition of skill.definitions) toolOwners.set(definition.name, candidate.name)
    accepted.push(skill)
  }
  return { accepted, errors, warnings }
}

const readSkillDescription = `Load the full instructions of one of your skills.
Call it when a task matches a skill listed under "Available skills" in your instructions, before you act on that task.

Parameters:
  skill_name  Required. The skill's name, exactly as listed.

Output: the skill's instructions, in Markdown. Follow them.

Errors: an unknown name returns the list of available skills.`

/**
 * The `read_skill` tool over `documents`: returns a skill's instructions, and
 * for an unknown name the available names (closest first). A name that
 * differs only in case or surrounding spaces is forgiven when it is unambiguous.
 */
export const readSkillTool = (documents: ReadonlyArray<SkillDocument>): Tool.Tool => {
  const byName = new Map(documents.map((document) => [document.name, document]))
  const names = documents.map((document) => document.name)
  return Tool.make({
    name: readSkillName,
    description: readSkillDescription,
    shortDescription: "Load the full instructions of a skill listed under Available skills (skill_name=<name>).",
    parameters: Schema.Struct({
      skill_name: Schema.String.annotations({ description: "Required. The skill's name, exactly as listed." })
    }),
    ...(names[0] === undefined ? {} : { examples: [{ skill_name: names[0] }] }),
    handler: ({ skill_name }) => {
      const wanted = skill_name.trim()
      const folded = names.filter((name) => name.toLowerCase() === wanted.toLowerCase())
      const forgiven = folded.length === 1 ? folded[0] : undefined
      const document = byName.get(wanted) ?? (forgiven === undefined ? undefined : byName.get(forgiven))
      if (document !== undefined) return Effect.succeed(`# Skill: ${document.name}\n\n${document.body}`)
      const close = closestNames(wanted, names)
      return Tool.fail(
        [
          `unknown skill ${shown(sanitizeSingleLine(wanted, 64))}.`,
          close.length > 0 ? ` Did you mean ${close.map((name) => JSON.stringify(name)).join(" or ")}?` : "",
          ` Available skills: ${names.join(", ")}.`,
          names[0] === undefined
            ? ""
            : ` Example call: ${readSkillName}({"skill_name":${JSON.stringify(close[0] ?? names[0])}})`
        ].join("")
      )
    }
  })
}

/**
 * Loads the skills of `directories` (later directories override earlier ones
 * by folder name) and renders them for `mode`. Never fails: see
 * {@link SkillsLoad}. Needs the `Sandbox`, which runs the skills' tools.
 *
 * ```ts
 * const skills = yield* loadSkills(["/etc/easyai/skills", "./skills"], "readOnDemand", {
 *   allowedCommands: ["/usr/bin/git"],
 *   reservedNames: ["tool_lookup", "bash"]
 * })
 * for (const error of skills.errors) yield* Effect.logError(error)
 * ```
 */
export const loadSkills = (
  directories: ReadonlyArray<string>,
  mode: SkillsMode,
  options: SkillsOptions = {}
): Effect.Effect<SkillsLoad, never, Sandbox> =>
  Effect.gen(function*() {
    const sandbox = yield* Sandbox
    const discovery = yield* Effect.promise(() => discover(directories)) // never rejects
    const outcomes = yield* Effect.forEach(
      discovery.candidates,
      (candidate) => Effect.map(loadSkill(candidate, options), (outcome) => [candidate, outcome] as const),
      { concurrency: 8 }
    )
    const { accepted, errors, warnings } = combine(outcomes, mode)
    const documents = accepted.map((skill) => skill.document)
    const skillTools = accepted.flatMap((skill) =>
      skill.definitions.map((definition) => externalTool(definition, sandbox))
    )
    return {
      skills: accepted.map((skill) => ({
        name: skill.document.name,
        description: skill.document.description,
        folder: skill.candidate.folder,
        tools: skill.definitions.map((definition) => definition.name)
      })),
      systemText: renderSection(documents, mode),
      tools: mode === "readOnDemand" && documents.length > 0 ? [readSkillTool(documents), ...skillTools] : skillTools,
      errors: [...discovery.errors, ...errors],
      warnings
    }
  }).pipe(Effect.withSpan("Skills.load"))
