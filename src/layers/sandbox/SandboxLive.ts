/**
 * The `Sandbox` on the local file system and processes.
 *
 * node's fs is used directly where @effect/platform's FileSystem has no
 * equivalent: opening with O_NOFOLLOW (a symbolic link swapped in after the
 * check is refused, not followed) and exclusive temporary files for atomic
 * writes.
 *
 * @module
 */
import { randomBytes } from "node:crypto"
import { constants } from "node:fs"
import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import { Effect, Either, Layer } from "effect"
import { FileError, SandboxSetupError, SandboxViolation } from "../../domain/errors.js"
import { type DirectoryEntry, type FileInfo, Sandbox, type Service } from "../../services/Sandbox.js"
import { checkLaunchable } from "./executable.js"
import { decide, type IsolateMode } from "./isolation.js"
import { resolvePath, toVirtual } from "./paths.js"
import { runProcess } from "./process.js"
import { checkToolEnvNames, toolEnvironment } from "./toolEnv.js"

export type { IsolateMode } from "./isolation.js"

/** Options of {@link layer}. */
export interface Options {
  /** The directory the model sees as `/`; created if missing. */
  readonly root: string
  /**
   * How tool processes are confined (the service's `Isolation`):
   * `auto` (the default) uses bubblewrap where it works and falls back
   * otherwise, `on` fails to start without it, `off` always uses the
   * fallback (process tracking, and evaluate's Python audit hook alone).
   */
  readonly isolate?: IsolateMode
  /** The bubblewrap program; default `bwrap` on PATH. */
  readonly bwrap?: string
  /**
   * Variables in the tool environment (`bash` gets it) besides the short default list
   * (PATH, HOME, LANG, LANGUAGE, LC_*, TERM, TZ, USER, LOGNAME, SHELL,
   * TMPDIR). easyai's own `EASYAI_*` variables are refused.
   */
  readonly toolEnv?: ReadonlyArray<string>
}

type FsFailure = FileError | SandboxViolation

/** Translates a node fs error once, at the edge. */
const fsFailure = (path: string) => (error: unknown): FsFailure => {
  const code = typeof error === "object" && error !== null ? (error as { readonly code?: unknown }).code : undefined // boundary: node errors carry a code
  switch (code) {
    case "ENOENT":
      return new FileError({ path, reason: "NotFound" })
    case "EISDIR":
      return new FileError({ path, reason: "NotAFile" })
    case "ENOTDIR":
      return new FileError({ path, reason: "NotADirectory" })
    case "EEXIST":
      return new FileError({ path, reason: "AlreadyExists" })
    case "EACCES":
    case "EPERM":
      return new FileError({ path, reason: "PermissionDenied" })
    case "EFBIG":
      return new FileError({ path, reason: "TooLarge", detail: error instanceof Error ? error.message : String(error) })
    case "ELOOP":
      // O_NOFOLLOW met a symbolic link that was not there when the path was checked.
      return new SandboxViolation({ path, reason: "SymlinkEscape" })
    default:
      return new FileError({ path, reason: "Io", detail: error instanceof Error ? error.message : String(error) })
  }
}

const typeOf = (stats: { isFile(): boolean; isDirectory(): boolean }): "File" | "Directory" | "Other" =>
  stats.isFile() ? "File" : stats.isDirectory() ? "Directory" : "Other"

const make = (options: Options) =>
  Effect.gen(function*() {
    const toolEnvNames = yield* Either.match(checkToolEnvNames(options.toolEnv ?? []), {
      onLeft: (detail) => Effect.fail(new SandboxSetupError({ reason: "ToolEnvRefused", detail })),
      onRight: Effect.succeed
    })
    const root = yield* Effect.tryPromise({
      try: async () => {
        await fs.mkdir(options.root, { recursive: true })
        return fs.realpath(options.root)
      },
      catch: fsFailure(options.root)
    })
    const confinement = yield* decide(options.isolate ?? "auto", root, options.bwrap)
    const resolve = (path: string) => resolvePath(root, path)

    /** Opens a resolved file for reading without following a last-moment symbolic link. */
    const withFile = <A>(path: string, use: (handle: fs.FileHandle) => Promise<A>) =>
      Effect.flatMap(resolve(path), (resolved) =>
        Effect.tryPromise({
          try: async () => {
            const handle = await fs.open(resolved.real, constants.O_RDONLY | constants.O_NOFOLLOW)
            try {
              if (!(await handle.stat()).isFile()) throw Object.assign(new Error("not a file"), { code: "EISDIR" })
              return await use(handle)
            } finally {
              await handle.close()
            }
          },
          catch: fsFailure(resolved.virtual)
        }))

    const stat = (path: string) =>
      Effect.flatMap(resolve(path), (resolved) =>
        Effect.tryPromise({
          try: async (): Promise<FileInfo> => {
            const stats = await fs.stat(resolved.real)
            return { path: resolved.virtual, type: typeOf(stats), size: stats.size, modifiedMillis: stats.mtimeMs }
          },
          catch: fsFailure(resolved.virtual)
        }))

    const readFile = (path: string, maxBytes: number) =>
      withFile(path, async (handle) => {
        const { size } = await handle.stat()
        if (size > maxBytes) throw Object.assign(new Error(`${size} bytes, more than ${maxBytes}`), { code: "EFBIG" })
        return new Uint8Array(await handle.readFile())
      })

    const readRange = (path: string, offset: number, length: number) =>
      withFile(path, async (handle) => {
        const { size } = await handle.stat()
        const start = Math.min(Math.max(0, offset), size)
        const buffer = Buffer.alloc(Math.max(0, Math.min(length, size - start)))
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, start)
        return { bytes: new Uint8Array(buffer.subarray(0, bytesRead)), size }
      })

    const writeFile = (path: string, data: Uint8Array | string) =>
      Effect.flatMap(resolve(path), (resolved) =>
        resolved.virtual === "/"
          ? Effect.fail(new FileError({ path: resolved.virtual, reason: "NotAFile" }))
          : Effect.tryPromise({
            try: async () => {
              await fs.mkdir(nodePath.dirname(resolved.real), { recursive: true })
              // Write beside the target, then rename: a reader never sees half a file.
              const temporary = `${resolved.real}.easyai-${randomBytes(6).toString("hex")}.tmp`
              const handle = await fs.open(
                temporary,
                constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
                0o644
              )
              try {
                await handle.writeFile(data)
                await handle.sync()
              } finally {
                await handle.close()
              }
              try {
                await fs.rename(temporary, resolved.real)
              } catch (error) {
                await fs.rm(temporary, { force: true })
                throw error
              }
            },
            catch: fsFailure(resolved.virtual)
          }))

    const list = (path: string) =>
      Effect.flatMap(resolve(path), (resolved) =>
        Effect.tryPromise({
          try: async (): Promise<ReadonlyArray<DirectoryEntry>> => {
            const entries = await fs.readdir(resolved.real, { withFileTypes: true })
            const out = await Promise.all(entries.map(async (entry) => {
              const stats = await fs.lstat(nodePath.join(resolved.real, entry.name))
              return { name: entry.name, type: typeOf(stats), size: stats.size }
            }))
            return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
          },
          catch: fsFailure(resolved.virtual)
        }))

    const walk = (path: string, limit: number) =>
      Effect.flatMap(resolve(path), (resolved) =>
        Effect.tryPromise({
          try: async () => {
            const files: Array<string> = []
            const visit = async (directory: string): Promise<void> => {
              const entries = (await fs.readdir(directory, { withFileTypes: true }))
                .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
              for (const entry of entries) {
                if (files.length >= limit) return
                const full = nodePath.join(directory, entry.name)
                if (entry.isDirectory()) await visit(full) // symbolic links are entries, never followed
                else if (entry.isFile()) files.push(toVirtual(root, full))
              }
            }
            const stats = await fs.stat(resolved.real)
            if (stats.isFile()) return [resolved.virtual]
            await visit(resolved.real)
            return files
          },
          catch: fsFailure(resolved.virtual)
        }))

    const service: Service = {
      root,
      resolve,
      stat,
      readFile,
      readRange,
      writeFile,
      list,
      walk,
      run: (spec) =>
        confinement.isolation.mechanism === "off"
          ? runProcess(spec, root)
          : Effect.zipRight(checkLaunchable(spec.command), runProcess(confinement.wrap(spec, root), root, confinement.launch)),
      isolation: confinement.isolation,
      toolEnv: Effect.sync(() => toolEnvironment(toolEnvNames, process.env))
    }
    return service
  })

/** A sandbox rooted at `options.root`; how it confines processes is probed once, here. */
export const layer = (options: Options): Layer.Layer<Sandbox, FileError | SandboxViolation | SandboxSetupError> =>
  Layer.effect(Sandbox, make(options))
