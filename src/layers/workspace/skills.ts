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
import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import { Effect, Either } from "effect"
import { sanitizeAddendum } from "../../domain/Sanitize.js"
import type * as Tool from "../../domain/Tool.js"
import { Sandbox } from "../../services/Sandbox.js"
import type { ExternalToolDefinition } from "../tools/external/manifest.js"
import { externalTool } from "../tools/external/run.js"
import { readSkillTool } from "./readSkill.js"
import {
  isSkillName,
  parseSkillFile,
  readSkillName,
  type SkillDocument,
  skillFileName,
  skillLimits,
  skillNameRule,
  type SkillsMode,
  toolsFileName
} from "./skillFile.js"
import { loadTools, type SkillsOptions } from "./skillTools.js"
import { readTextFile } from "./textFile.js"
import { errorCode, errorText } from "../../domain/errorText.js"
import { utf8Length } from "../../domain/utf8.js"

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
    const tools = yield* loadTools(candidate.folder, options)
    const errors = [...(Either.isLeft(document) ? document.left.problems : []), ...tools.errors]
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
  let used = utf8Length(mode === "full" ? fullIntro : compactIntro)
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
    const cost = utf8Length(entryText(skill.document, mode)) + (mode === "full" ? 2 : 1)
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
