/**
 * Loading the operator's external tools from a directory of manifests.
 *
 * Manifests live outside the sandbox (they are the operator's deploy
 * artefacts, like a sudoers file), so they are read with node's fs
 * directly, not through the `Sandbox`. The `Sandbox` is needed only to run
 * the tools later, and to resolve `"$SANDBOX"` to its root.
 *
 * Faults are isolated per file: a manifest with any problem contributes no
 * tool and one error message per problem, and the other files still load.
 * Files load in name order, so when two files declare the same tool name
 * the earlier file keeps it and the later file is refused.
 *
 * Nothing here fails: a missing or unreadable directory is reported as a
 * single entry in `errors`, because an operator's broken tool directory
 * should not stop an agent from starting with its built-in tools.
 *
 * @module
 */
import { constants } from "node:fs"
import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import { Effect, Either } from "effect"
import type { Tool } from "../../../domain/Tool.js"
import { Sandbox } from "../../../services/Sandbox.js"
import { readUpTo, withRegular } from "../../files/regularFile.js"
import { type ExternalToolDefinition, isManifestFileName, parseManifest } from "./manifest.js"
import { sandboxCwd } from "./manifestFields.js"
import { limits } from "./manifestRules.js"
import { externalTool } from "./run.js"
import { errorCode, errorText } from "../../../domain/errorText.js"

/** What a load produced: the tools, and what the operator should read. */
export interface ExternalToolsLoad {
  readonly tools: ReadonlyArray<Tool>
  /** One message per problem; each names the file (and the tool) it is about. */
  readonly errors: ReadonlyArray<string>
  /** Observations that did not stop a file from loading. */
  readonly warnings: ReadonlyArray<string>
}

/** The checks of one file. */
interface FileOutcome {
  readonly definitions: ReadonlyArray<ExternalToolDefinition>
  readonly errors: ReadonlyArray<string>
  readonly warnings: ReadonlyArray<string>
}

const failedFile = (errors: ReadonlyArray<string>, warnings: ReadonlyArray<string> = []): FileOutcome => ({
  definitions: [],
  errors,
  warnings
})



const isWorldWritable = (mode: number): boolean => (mode & 0o002) !== 0

/** A manifest's text, and its permission bits for the sanity check. */
interface ManifestFile {
  readonly text: string
  readonly mode: number
}

/**
 * Reads a manifest whole, after making sure it is a regular file of at most
 * 1 MiB: a FIFO or a device is refused before it is opened, and the read
 * itself stops one byte past the limit, in case the file grew meanwhile.
 */
const readManifest = async (path: string, label: string): Promise<Either.Either<ManifestFile, string>> => {
  const tooLarge = (size: number) =>
    Either.left(`${label}: manifest exceeds ${limits.manifestBytes} bytes (it has ${size})`)
  let mode: number
  try {
    const stats = await fs.stat(path)
    if (!stats.isFile()) return Either.left(`${label}: manifest is not a regular file`)
    if (stats.size > limits.manifestBytes) return tooLarge(stats.size)
    mode = stats.mode
  } catch (error) {
    return Either.left(
      errorCode(error) === "ENOENT" ? `${label}: manifest does not exist` : `${label}: cannot read: ${errorText(error)}`
    )
  }
  try {
    // Opened without blocking and checked on the descriptor: a FIFO swapped in after the check does not hang.
    return await withRegular(path, async (handle): Promise<Either.Either<ManifestFile, string>> => {
      const bytes = await readUpTo(handle, limits.manifestBytes)
      if (bytes.length > limits.manifestBytes) return tooLarge(Number((await handle.stat()).size)) // it grew since the check
      try {
        return Either.right({ text: new TextDecoder("utf-8", { fatal: true }).decode(bytes), mode })
      } catch {
        return Either.left(`${label}: manifest is not valid UTF-8`)
      }
    }, () => Either.left(`${label}: manifest is not a regular file`), { followLinks: true })
  } catch (error) {
    return Either.left(`${label}: cannot read: ${errorText(error)}`)
  }
}

/** The on-disk checks of one tool: its command (an error if unusable) and its cwd (a warning). */
const checkOnDisk = async (
  definition: ExternalToolDefinition,
  errors: Array<string>,
  warnings: Array<string>
): Promise<void> => {
  const where = `${definition.file}: tool "${definition.name}"`
  const command = JSON.stringify(definition.command)
  try {
    const stats = await fs.stat(definition.command)
    if (!stats.isFile()) {
      errors.push(`${where}: command ${command} is not a regular file`)
    } else {
      try {
        await fs.access(definition.command, constants.X_OK)
        if (isWorldWritable(stats.mode)) {
          warnings.push(`${where}: command ${command} is writable by every user; anyone on the host can replace it`)
        }
      } catch {
        errors.push(`${where}: command ${command} is not executable`)
      }
    }
  } catch (error) {
    errors.push(
      errorCode(error) === "ENOENT"
        ? `${where}: command ${command} does not exist`
        : `${where}: command ${command} cannot be checked: ${errorText(error)}`
    )
  }
  if (definition.cwd === sandboxCwd) return
  const isDirectory = await fs.stat(definition.cwd).then((stats) => stats.isDirectory(), () => false)
  if (!isDirectory) {
    warnings.push(`${where}: cwd ${JSON.stringify(definition.cwd)} is not a directory; calls will fail until it is one`)
  }
}

/** Reads, parses and checks one manifest file. Never rejects. */
const loadFile = async (path: string, label: string, reservedNames: ReadonlyArray<string>): Promise<FileOutcome> => {
  const read = await readManifest(path, label)
  if (Either.isLeft(read)) return failedFile([read.left])
  const parsed = parseManifest(label, read.right.text, reservedNames)
  if (Either.isLeft(parsed)) return failedFile(parsed.left.problems)
  const errors: Array<string> = []
  const warnings: Array<string> = [...parsed.right.warnings]
  if (isWorldWritable(read.right.mode)) {
    warnings.push(`${label}: the manifest is writable by every user; anyone on the host can add tools to it`)
  }
  for (const definition of parsed.right.tools) await checkOnDisk(definition, errors, warnings)
  return errors.length > 0 ? failedFile(errors, warnings) : { definitions: parsed.right.tools, errors, warnings }
}

/** A name that looks meant as a manifest but is not one; `.disabled` copies are skipped on purpose, silently. */
const looksLikeManifest = (fileName: string): boolean => {
  const lower = fileName.toLowerCase()
  return !isManifestFileName(fileName) && lower.startsWith("easyai-") && lower.endsWith(".tools")
}

/** Accepts files in order, refusing a whole file whose tool an earlier file already declared. */
const combine = (outcomes: ReadonlyArray<FileOutcome>) => {
  const owners = new Map<string, string>()
  const definitions: Array<ExternalToolDefinition> = []
  const errors: Array<string> = []
  const warnings: Array<string> = []
  for (const outcome of outcomes) {
    errors.push(...outcome.errors)
    warnings.push(...outcome.warnings)
    const clashes = outcome.definitions.flatMap((definition) => {
      const owner = owners.get(definition.name)
      return owner === undefined
        ? []
        : [`${definition.file}: tool "${definition.name}" is already declared in ${owner}; choose another name`]
    })
    if (clashes.length > 0) {
      errors.push(...clashes)
      continue
    }
    for (const definition of outcome.definitions) owners.set(definition.name, definition.file)
    definitions.push(...outcome.definitions)
  }
  return { definitions, errors, warnings }
}

const toLoad = (outcomes: ReadonlyArray<FileOutcome>, extraWarnings: ReadonlyArray<string> = []) =>
  Effect.map(Sandbox, (sandbox): ExternalToolsLoad => {
    const { definitions, errors, warnings } = combine(outcomes)
    return {
      tools: definitions.map((definition) => externalTool(definition, sandbox)),
      errors,
      warnings: [...extraWarnings, ...warnings]
    }
  })

interface Listing {
  readonly names: ReadonlyArray<string>
  readonly warnings: ReadonlyArray<string>
}

/** Lists the directory's manifest names in order, and warns about near misses. */
const listManifests = async (directory: string): Promise<Either.Either<Listing, string>> => {
  const shown = JSON.stringify(directory)
  try {
    const entries = (await fs.readdir(directory)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    return Either.right({
      names: entries.filter(isManifestFileName),
      warnings: entries.filter(looksLikeManifest).map((name) =>
        `ignoring ${JSON.stringify(name)} in ${shown}: manifest files must be named exactly EASYAI-<name>.tools`
      )
    })
  } catch (error) {
    switch (errorCode(error)) {
      case "ENOENT":
        return Either.left(`external tools directory ${shown} does not exist`)
      case "ENOTDIR":
        return Either.left(`external tools directory ${shown} is not a directory`)
      default:
        return Either.left(`cannot read external tools directory ${shown}: ${errorText(error)}`)
    }
  }
}

/**
 * Loads every `EASYAI-<name>.tools` file at the top level of `directory`.
 * `reservedNames` are the names a manifest may not take: the built-in and
 * already-registered tools. Never fails; see {@link ExternalToolsLoad}.
 */
export const loadExternalTools = (
  directory: string,
  reservedNames: ReadonlyArray<string>
): Effect.Effect<ExternalToolsLoad, never, Sandbox> =>
  Effect.flatMap(
    Effect.promise(() => listManifests(directory)), // never rejects: failures are Either values
    (listed) => {
      if (Either.isLeft(listed)) return Effect.succeed({ tools: [], errors: [listed.left], warnings: [] })
      return Effect.flatMap(
        Effect.promise(() =>
          Promise.all(listed.right.names.map((name) => loadFile(nodePath.join(directory, name), name, reservedNames)))
        ),
        (outcomes) => toLoad(outcomes, listed.right.warnings)
      )
    }
  )

/**
 * Loads one manifest file, whatever its name: for tests and programmatic
 * use. Messages name it by its base name.
 */
export const loadExternalToolsFile = (
  path: string,
  reservedNames: ReadonlyArray<string>
): Effect.Effect<ExternalToolsLoad, never, Sandbox> =>
  Effect.flatMap(
    Effect.promise(() => loadFile(path, nodePath.basename(path), reservedNames)), // never rejects
    (outcome) => toLoad([outcome])
  )
