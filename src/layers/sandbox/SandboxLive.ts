/**
 * The `Sandbox` on the local file system and processes.
 *
 * Every file operation walks the model's path from the root one component
 * at a time, each directory opened inside the one before (`anchored.ts`),
 * so a directory swapped for a symbolic link mid-call cannot carry a read
 * or a write outside the root. Files are opened without blocking and read
 * only when the opened descriptor is a regular file (`regularFile.ts`).
 * Writes go to an exclusive temporary file in the directory already opened,
 * renamed into place; a failed or interrupted write removes it, and the
 * next write into a directory removes those a dead writer left
 * (`temporary.ts`). node's fs is used directly where @effect/platform's
 * FileSystem has no equivalent (open flags, descriptors).
 *
 * @module
 */
import type { Dirent } from "node:fs"
import * as fs from "node:fs/promises"
import { Effect, Either, Layer, Ref } from "effect"
import { FileError, SandboxSetupError, SandboxViolation } from "../../domain/errors.js"
import type { DirectoryEntry, DirectoryListing, FileInfo, Service } from "../../services/Sandbox.js"
import { Sandbox } from "../../services/Sandbox.js"
import { describeKind, readUpTo, type SpecialKind, withRegular } from "../files/regularFile.js"
import {
  type Follow,
  follow,
  isFollow,
  LinkEscape,
  type Located,
  locate,
  makeTree,
  openChild,
  type OpenDirectory,
  type Tree,
  walkTo
} from "./anchored.js"
import { checkLaunchable } from "./executable.js"
import { decide, type IsolateMode } from "./isolation.js"
import { lexicalComponents, resolvePath } from "./paths.js"
import { runProcess } from "./process.js"
import { isStale, isTemporary, staleAfterMillis, temporaryName, writerOf } from "./temporary.js"
import { checkToolEnvNames, toolEnvironment } from "./toolEnv.js"
import { errorCode, errorText } from "../../domain/errorText.js"
import { writeAtomically } from "../files/atomicWrite.js"

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
  /**
   * Internal, for tests: called for every entry `list` stats, so a test can
   * prove that a listing examines only the entries it shows.
   */
  readonly onEntryStat?: () => void
  /**
   * Internal, for tests: `false` walks paths by name under the root, as on
   * systems without `/proc`, instead of relative to opened directories.
   */
  readonly descriptorWalk?: boolean
}

type FsFailure = FileError | SandboxViolation

/** The last component is not a regular file, so it is not read. */
class SpecialFile extends Error {
  constructor(readonly kind: SpecialKind) {
    super(describeKind(kind))
  }
}

/** Translates a node fs error (or a refusal of the walk) once, at the edge. */
const fsFailure = (path: string) => (error: unknown): FsFailure => {
  if (error instanceof LinkEscape) return new SandboxViolation({ path, reason: "SymlinkEscape" })
  if (error instanceof SpecialFile) {
    return error.kind === "Directory"
      ? new FileError({ path, reason: "NotAFile" })
      : new FileError({ path, reason: "NotRegular", detail: `it is ${describeKind(error.kind)}` })
  }
  const detail = errorText(error)
  switch (errorCode(error)) {
    case "ENOENT":
      return new FileError({ path, reason: "NotFound" })
    case "EISDIR":
      return new FileError({ path, reason: "NotAFile" })
    case "ENOTDIR":
      return new FileError({ path, reason: "NotADirectory" })
    case "EEXIST":
    case "ENOTEMPTY":
      return new FileError({ path, reason: "AlreadyExists" })
    case "EACCES":
    case "EPERM":
      return new FileError({ path, reason: "PermissionDenied" })
    case "EFBIG":
      return new FileError({ path, reason: "TooLarge", detail })
    default:
      return new FileError({ path, reason: "Io", detail })
  }
}

const typeOf = (stats: { isFile(): boolean; isDirectory(): boolean }): "File" | "Directory" | "Other" =>
  stats.isFile() ? "File" : stats.isDirectory() ? "Directory" : "Other"

const byName = (a: Dirent, b: Dirent): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

/** A directory's entries, without our temporary files, sorted by name; no entry is stat'ed. */
const entriesOf = async (tree: Tree, dir: OpenDirectory): Promise<Array<Dirent>> =>
  (await fs.readdir(tree.self(dir), { withFileTypes: true })).filter((entry) => !isTemporary(entry.name)).sort(byName)

/** How often one directory is swept for left-over temporary files. */
const sweepEveryMillis = staleAfterMillis
/** Directories whose last sweep is remembered; past this the memory starts over. */
const sweptMemory = 4096

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
    const tree = yield* Effect.tryPromise({ try: () => makeTree(root, options.descriptorWalk ?? true), catch: fsFailure("/") })
    if (!tree.anchored && options.descriptorWalk !== false) {
      yield* Effect.logWarning(
        "no /proc/self/fd: the sandbox reaches paths by name, so a directory swapped for a link mid-call is not always caught"
      )
    }
    const onEntryStat = options.onEntryStat ?? (() => {})
    /** When each directory (by its components) was last swept, in wall-clock millis. */
    const swept = yield* Ref.make<ReadonlyMap<string, number>>(new Map())
    /** Whether `key` is due for a sweep at `now`; if so, it is marked swept. */
    const dueForSweep = (key: string, now: number) =>
      Ref.modify(swept, (last): readonly [boolean, ReadonlyMap<string, number>] => {
        if (now - (last.get(key) ?? Number.NEGATIVE_INFINITY) < sweepEveryMillis) return [false, last]
        return [true, new Map(last.size >= sweptMemory ? [] : last).set(key, now)]
      })

    const resolve = (path: string) => resolvePath(root, path)

    /** The model's path, lexically: its components and its normalized virtual form. */
    const parse = (path: string) =>
      Effect.map(lexicalComponents(path), (components) => ({ components, virtual: `/${components.join("/")}` }))

    /** Runs `last` on the path's final component, reached without leaving the root; `virtual` is the model's path. */
    const at = <A>(path: string, last: (located: Located, virtual: string) => Promise<A | Follow>) =>
      Effect.flatMap(parse(path), ({ components, virtual }) =>
        Effect.tryPromise({
          try: () => walkTo(tree, components, false, (located) => last(located, virtual)),
          catch: fsFailure(virtual)
        }))

    /** Reads the regular file at the path with `use`; a link inside the root is followed, anything else refused. */
    const withFile = <A>(path: string, use: (handle: fs.FileHandle, size: number) => Promise<A>) =>
      at(path, async ({ dir, name }) => {
        if (name === undefined) throw new SpecialFile("Directory")
        return withRegular(
          tree.at(dir, name),
          (handle, stats) => use(handle, Number(stats.size)),
          (kind) => {
            if (kind === "SymbolicLink") return follow(tree, dir, name)
            throw new SpecialFile(kind)
          }
        )
      })

    const stat = (path: string) =>
      at(path, async ({ dir, name }, virtual): Promise<FileInfo | Follow> => {
        const stats = name === undefined ? await dir.handle.stat() : await fs.lstat(tree.at(dir, name))
        if (name !== undefined && stats.isSymbolicLink()) return follow(tree, dir, name)
        return { path: virtual, type: typeOf(stats), size: stats.size, modifiedMillis: stats.mtimeMs }
      })

    const readFile = (path: string, maxBytes: number) =>
      withFile(path, async (handle, size) => {
        const tooLarge = (bytes: number) =>
          Object.assign(new Error(`${bytes} bytes, more than ${maxBytes}`), { code: "EFBIG" })
        if (size > maxBytes) throw tooLarge(size)
        const bytes = await readUpTo(handle, maxBytes)
        if (bytes.length > maxBytes) throw tooLarge(bytes.length) // it grew since it was measured
        return new Uint8Array(bytes)
      })

    const readRange = (path: string, offset: number, length: number) =>
      withFile(path, async (handle, size) => {
        const start = Math.min(Math.max(0, offset), size)
        const buffer = Buffer.alloc(Math.max(0, Math.min(length, size - start)))
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, start)
        return { bytes: new Uint8Array(buffer.subarray(0, bytesRead)), size }
      })

    /** Removes the temporary files a dead writer left in `dir`; at most once per directory per {@link sweepEveryMillis}. */
    const sweep = (dir: OpenDirectory) => {
      const now = Date.now() // wall clock, as the kernel's file times
      return Effect.tryPromise(async () => {
        for (const name of await fs.readdir(tree.self(dir))) {
          const writer = writerOf(name)
          if (writer === undefined) continue
          const stats = await fs.lstat(tree.at(dir, name)).catch(() => undefined)
          if (stats?.isFile() === true && isStale(writer, now - stats.mtimeMs)) {
            await fs.unlink(tree.at(dir, name)).catch(() => undefined) // another sweeper may be first
          }
        }
      }).pipe(
        Effect.catchAll((error) =>
          Effect.logDebug("sweeping left-over temporary files failed").pipe(Effect.annotateLogs({ error: String(error) }))
        ),
        Effect.whenEffect(dueForSweep(dir.components.join("/"), now))
      )
    }

    /** The directory to write `name` into, open; a link as the last component is followed, a directory refused. */
    const locateForWrite = (components: ReadonlyArray<string>, virtual: string) =>
      Effect.acquireRelease(
        Effect.tryPromise({
          try: () =>
            locate(tree, components, true, async ({ dir, name }) => {
              if (name === undefined) throw new SpecialFile("Directory")
              const stats = await fs.lstat(tree.at(dir, name)).catch((error: unknown) => {
                if (errorCode(error) === "ENOENT") return undefined
                throw error
              })
              if (stats?.isSymbolicLink() === true) return follow(tree, dir, name)
              if (stats?.isDirectory() === true) throw new SpecialFile("Directory")
              return undefined
            }),
          catch: fsFailure(virtual)
        }),
        (located) => Effect.promise(() => located.dir.handle.close().catch(() => undefined))
      )

    /**
     * Writes `data` to a fresh temporary file in `dir`, then renames it over
     * `name` in that same directory. Should anything fail or the fiber be
     * interrupted before the rename, the temporary file is removed.
     */
    const writeInto = (dir: OpenDirectory, name: string, data: Uint8Array | string, virtual: string) =>
      Effect.gen(function*() {
        // Interrupted, the write stops before its move and leaves no temporary file (see `writeAtomically`).
        yield* writeAtomically(tree.at(dir, temporaryName(name)), tree.at(dir, name), data).pipe(Effect.mapError(fsFailure(virtual)))
      })

    const writeFile = (path: string, data: Uint8Array | string) =>
      Effect.flatMap(parse(path), ({ components, virtual }) =>
        components.length === 0
          ? Effect.fail(new FileError({ path: virtual, reason: "NotAFile" }))
          : Effect.scoped(Effect.gen(function*() {
            const { dir, name } = yield* locateForWrite(components, virtual)
            if (name === undefined) return yield* new FileError({ path: virtual, reason: "NotAFile" })
            yield* sweep(dir)
            yield* writeInto(dir, name, data, virtual)
          })))

    /** The directory at the path, opened (the walk's own directory is closed by the walk). */
    const withDirectory = <A>(path: string, use: (dir: OpenDirectory) => Promise<A>) =>
      at(path, async ({ dir, name }) => {
        if (name === undefined) return use(dir)
        const child = await openChild(tree, dir, name, false)
        if (isFollow(child)) return child // a link: follow it
        try {
          return await use(child)
        } finally {
          await child.handle.close()
        }
      })

    const list = (path: string, limit: number) =>
      withDirectory(path, async (dir): Promise<DirectoryListing> => {
        const all = await entriesOf(tree, dir)
        const entries = await Promise.all(all.slice(0, Math.max(0, limit)).map(async (entry): Promise<DirectoryEntry> => {
          const type = typeOf(entry)
          if (type !== "File") return { name: entry.name, type, size: 0 }
          onEntryStat()
          const stats = await fs.lstat(tree.at(dir, entry.name)).catch(() => undefined) // gone since the listing: size 0
          return { name: entry.name, type, size: stats?.size ?? 0 }
        }))
        return { entries, total: all.length }
      })

    const walk = (path: string, limit: number) =>
      at(path, async ({ dir, name }, virtual): Promise<ReadonlyArray<string> | Follow> => {
          const files: Array<string> = []
          const virtualOf = (components: ReadonlyArray<string>) => `/${components.join("/")}`
          const visit = async (directory: OpenDirectory): Promise<void> => {
            for (const entry of await entriesOf(tree, directory)) {
              if (files.length >= limit) return
              if (entry.isFile()) files.push(virtualOf([...directory.components, entry.name]))
              else if (entry.isDirectory()) {
                // Symbolic links are entries, never followed; one swapped in since the listing is skipped.
                const child = await openChild(tree, directory, entry.name, false).catch(() => undefined)
                if (child === undefined || isFollow(child)) continue
                try {
                  await visit(child)
                } finally {
                  await child.handle.close()
                }
              }
            }
          }
          if (name === undefined) {
            await visit(dir)
            return files
          }
          const stats = await fs.lstat(tree.at(dir, name))
          if (stats.isSymbolicLink()) return follow(tree, dir, name)
          if (stats.isFile()) return [virtual]
          const child = await openChild(tree, dir, name, false)
          if (isFollow(child)) return child
          try {
            await visit(child)
          } finally {
            await child.handle.close()
          }
          return files
      })

    const service: Service = {
      root,
      resolve,
      stat,
      readFile: spanned("readFile", readFile),
      readRange: spanned("readRange", readRange),
      writeFile: spanned("writeFile", writeFile),
      list: spanned("list", list),
      walk: spanned("walk", walk),
      run: (spec) =>
        (confinement.isolation.mechanism === "off"
          ? runProcess(spec, root)
          : Effect.zipRight(checkLaunchable(spec.command), runProcess(confinement.wrap(spec, root), root, confinement.launch))).pipe(
            Effect.withSpan("Sandbox.run", {
              attributes: { "easyai.sandbox.command": spec.command, "easyai.sandbox.isolation": confinement.isolation.mechanism }
            })
          ),
      isolation: confinement.isolation,
      toolEnv: Effect.sync(() => toolEnvironment(toolEnvNames, process.env))
    }
    return service
  })

/** `operation` as the `Sandbox.<name>` span, with the virtual path it was given. */
const spanned = <Rest extends ReadonlyArray<unknown>, A, E>(
  name: string,
  operation: (path: string, ...rest: Rest) => Effect.Effect<A, E>
) =>
(path: string, ...rest: Rest): Effect.Effect<A, E> =>
  operation(path, ...rest).pipe(Effect.withSpan(`Sandbox.${name}`, { attributes: { "easyai.sandbox.path": path } }))

/** A sandbox rooted at `options.root`; how it confines processes is probed once, here. */
export const layer = (options: Options): Layer.Layer<Sandbox, FileError | SandboxViolation | SandboxSetupError> =>
  Layer.effect(Sandbox, make(options))
