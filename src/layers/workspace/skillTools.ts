/**
 * A skill's `tools.json`: an external-tools manifest (see
 * `docs/external-tools.md`) whose relative commands are resolved against the
 * skill folder, and whose every command must pass the operator's allow-list
 * (see {@link SkillsOptions}).
 *
 * @module
 */
import { constants } from "node:fs"
import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import { Effect, Either } from "effect"
import { type ExternalToolDefinition, type ParsedManifest, parseManifest } from "../tools/external/manifest.js"
import { limits as manifestLimits } from "../tools/external/manifestRules.js"
import { readSkillName, shown, toolsFileName } from "./skillFile.js"
import { readTextFile } from "./textFile.js"
import { errorCode, errorText } from "../../domain/errorText.js"
import { ManifestError } from "../../domain/errors.js"
import { isObject, parseJson } from "../../domain/json.js"

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

/**
 * Makes relative commands absolute: a `command` containing `/` but not
 * starting with it is a path inside the skill folder. Anything the rewrite
 * does not understand is left for `parseManifest` to report.
 */
const resolveRelativeCommands = (
  label: string,
  text: string,
  folder: string
): Either.Either<string, ManifestError> => {
  // parseManifest locates a syntax error in the original text
  const manifest = Either.getOrUndefined(parseJson(text))
  if (!isObject(manifest) || !Array.isArray(manifest["tools"])) return Either.right(text)
  const errors: Array<string> = []
  const tools = manifest["tools"].map((entry: unknown, index) => {
    if (!isObject(entry)) return entry
    const command = entry["command"]
    if (typeof command !== "string" || command.startsWith("/") || !command.includes("/")) return entry
    const resolved = nodePath.resolve(folder, command)
    if (!resolved.startsWith(folder + nodePath.sep)) {
      errors.push(`${label}: tools[${index}]: command ${shown(command)} leaves the skill folder`)
      return entry
    }
    return { ...entry, command: resolved }
  })
  return errors.length > 0
    ? Either.left(new ManifestError({ file: label, problems: errors }))
    : Either.right(JSON.stringify({ ...manifest, tools }))
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
): Either.Either<ParsedManifest, ManifestError> =>
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

/** What a skill's `tools.json` yields; any error means no tools and no skill. */
export interface ToolsOutcome {
  readonly definitions: ReadonlyArray<ExternalToolDefinition>
  readonly errors: ReadonlyArray<string>
  readonly warnings: ReadonlyArray<string>
}

const noTools = (errors: ReadonlyArray<string>, warnings: ReadonlyArray<string> = []): ToolsOutcome => ({
  definitions: [],
  errors,
  warnings
})

/**
 * Reads and checks the `tools.json` of the skill in `folder`, if any: the
 * manifest rules, then every command on disk and against the allow-list.
 * Never fails: every problem is a message in the outcome.
 */
export const loadTools = (folder: string, options: SkillsOptions): Effect.Effect<ToolsOutcome> => {
  const label = nodePath.join(folder, toolsFileName)
  return Effect.flatMap(readTextFile(label, manifestLimits.manifestBytes), (read): Effect.Effect<ToolsOutcome> => {
    if (read._tag === "Missing") return Effect.succeed(noTools([]))
    if (read._tag === "Problem") return Effect.succeed(noTools([`${label}: ${read.detail}`]))
    if (!read.complete) {
      const limit = manifestLimits.manifestBytes
      return Effect.succeed(noTools([`${label}: manifest exceeds ${limit} bytes (it has ${read.size})`]))
    }
    const reserved = [readSkillName, ...(options.reservedNames ?? [])]
    const parsed = parseSkillTools(label, read.text, folder, reserved)
    if (Either.isLeft(parsed)) return Effect.succeed(noTools(parsed.left.problems))
    return Effect.promise(async () => { // never rejects: checkCommand catches everything
      const errors: Array<string> = []
      const warnings: Array<string> = [...parsed.right.warnings]
      for (const definition of parsed.right.tools) {
        await checkCommand(label, definition, folder, options, errors, warnings)
      }
      return errors.length > 0 ? noTools(errors, warnings) : { definitions: parsed.right.tools, errors, warnings }
    })
  })
}
