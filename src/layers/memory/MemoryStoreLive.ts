/**
 * The `MemoryStore`, on the file system (one Markdown file per entry) or in
 * memory (for tests and throw-away sessions). Both validate and rank through
 * `domain/memory.ts`, so they behave the same.
 *
 * The file store keeps an index (keywords, size, modification time per
 * entry) that is built lazily on first use, kept current by this process's
 * writes, and refreshed when the directory changed under it: every read
 * first stats the directory, and only when its modification time, change
 * time, size or inode differ from the last scan does it list the directory
 * again, re-reading just the files that are new or whose size, modification
 * time or inode changed. A warm read is one `stat(2)`; the vocabulary is
 * cached with the index and recomputed only when the index changes.
 *
 * Writes are atomic: the text goes to an exclusive temporary file in the same
 * directory, then `rename(2)` puts it in place (a `fix-` entry is linked into
 * place instead, which fails rather than replace an entry another process
 * created meanwhile). A reader in any process sees the old file or the new
 * one, never half of one. Within a process, writes and index refreshes are
 * serialized by the store's `SynchronizedRef`.
 *
 * @module
 */
import { randomBytes } from "node:crypto"
import type { BigIntStats } from "node:fs"
import * as fs from "node:fs/promises"
import { Clock, Effect, Layer, SynchronizedRef } from "effect"
import {
  type AppendResult,
  appendedBody,
  checkAppended,
  type EntryName,
  immutable,
  MemoryError,
  notFound
} from "../../domain/memory.js"
import { vocabularyOf } from "../../domain/memoryViews.js"
import { parseEntry, renderEntry } from "./entryFile.js"
import { MemoryStore } from "../../services/MemoryStore.js"
import { describeKind, readUpTo, type SpecialKind, withRegular } from "../files/regularFile.js"
import { type Backend, makeService, metaOf } from "./backend.js"
import {
  type DiskAccess,
  type FileState,
  type Indexed,
  indexedOf,
  io,
  makeDirectoryIndex
} from "./directoryIndex.js"
import { utf8Length } from "../../domain/utf8.js"
import { errorCode } from "../../domain/errorText.js"
import { writeAtomically } from "../files/atomicWrite.js"

export type { DiskAccess } from "./directoryIndex.js"
export { inMemory } from "./inMemory.js"

/** Options of {@link fileSystem}. */
export interface FileSystemOptions {
  /**
   * Internal, for tests: called on every directory listing and every entry
   * header read, so a test can prove that a warm index touches neither.
   */
  readonly onDiskAccess?: (access: DiskAccess) => void
}

/** How large a hand-edited entry file may be before `load` refuses it. */
const fileMaxBytes = 2 * 1024 * 1024

const tooLarge = (name: EntryName, size: bigint): MemoryError =>
  new MemoryError({
    reason: "BodyTooLarge",
    file: name.file,
    detail: `"${name.file}" is ${size} bytes, edited beyond the cap by hand: ask the operator to split it`
  })

/** An entry's file is taken by something that is not an entry: a file without a header, or `kind` of special file. */
const conflict = (name: EntryName, kind?: SpecialKind): MemoryError =>
  new MemoryError({
    reason: "Conflict",
    file: name.file,
    detail: `"${name.file}" exists in the memory directory but is not a memory entry (${
      kind === undefined ? `no "keywords:" first line` : `it is ${describeKind(kind)}`
    }): choose other keywords, or ask the operator about the file`
  })

const makeFileSystem = (directory: string, options: FileSystemOptions) =>
  Effect.gen(function*() {
    const dir = yield* Effect.tryPromise({
      try: async () => {
        await fs.mkdir(directory, { recursive: true })
        return fs.realpath(directory)
      },
      catch: io(directory, "create")
    })
    const access = options.onDiskAccess ?? (() => {})
    const { inspect, pathOf, snapshot, state } = yield* makeDirectoryIndex(dir, access)

    /** The state after this process wrote `item`: the next read scans, to catch foreign writes racing ours. */
    const withEntry = (current: FileState, item: Indexed): FileState => ({
      index: new Map(current.index).set(item.meta.key, item),
      stamp: undefined,
      view: undefined
    })

    /**
     * Writes `text` to a fresh exclusive temporary file beside the entry, then
     * moves it into place: `rename(2)`, or for `exclusive` a hard link that
     * fails if the entry appeared meanwhile (file systems without hard links
     * fall back to rename). Returns the entry file's stats, or "exists".
     */
    const writeEntry = (name: EntryName, text: string, modifiedMillis: number, exclusive: boolean) => {
      const target = pathOf(name)
      const modified = new Date(modifiedMillis)
      return writeAtomically(`${target}.${randomBytes(6).toString("hex")}.tmp`, target, text, {
        exclusive,
        beforeSync: (handle) => handle.utimes(modified, modified)
      }).pipe(
        Effect.flatMap((written) =>
          written === "exists"
            ? Effect.succeed<BigIntStats | "exists">("exists")
            : Effect.tryPromise(() => fs.lstat(target, { bigint: true }))
        ),
        Effect.mapError(io(name.file, "write"))
      )
    }

    const readWhole = (name: EntryName) =>
      Effect.tryPromise({
        try: async (): Promise<
          { readonly text: string; readonly stats: BigIntStats } | "missing" | { readonly special: SpecialKind }
        > => {
          try {
            // Never a blocking open: a FIFO named like an entry is a conflict, not a hang.
            return await withRegular(pathOf(name), async (handle, stats) => {
              if (stats.size > BigInt(fileMaxBytes)) throw tooLarge(name, stats.size)
              const bytes = await readUpTo(handle, fileMaxBytes)
              if (bytes.length > fileMaxBytes) throw tooLarge(name, BigInt(bytes.length))
              return { text: bytes.toString("utf8"), stats }
            }, (special) => ({ special }))
          } catch (error) {
            if (errorCode(error) === "ENOENT") return "missing"
            throw error
          }
        },
        catch: io(name.file, "read")
      })

    /** Reads an entry: its parsed body and index facts, or why there is none. */
    const readEntry = (name: EntryName) =>
      Effect.flatMap(readWhole(name), (read) => {
        if (read === "missing") return Effect.succeed(undefined)
        if ("special" in read) return Effect.fail(conflict(name, read.special))
        const parsed = parseEntry(read.text)
        if (parsed === undefined) return Effect.fail(conflict(name))
        return Effect.succeed({
          body: parsed.body,
          indexed: indexedOf(name, read.stats, utf8Length(read.text.slice(0, parsed.bodyStart)))
        })
      })

    /** Writes a whole entry and returns its index item. */
    const put = (name: EntryName, body: string, bytes: number, exclusive: boolean) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const stats = yield* writeEntry(name, renderEntry(name.keywords, body), now, exclusive)
        if (stats === "exists") return yield* immutable(name.file, "overwrite")
        const item: Indexed = {
          meta: metaOf(name, bytes, Number(stats.mtimeMs)),
          ino: stats.ino,
          size: stats.size,
          mtimeNs: stats.mtimeNs
        }
        return item
      })

    const backend: Backend = {
      snapshot,
      lastVocabulary: Effect.map(
        SynchronizedRef.get(state),
        (current) => current.view?.vocabulary ?? vocabularyOf([...current.index.values()].map((item) => item.meta))
      ),
      save: (name, body, bytes) =>
        SynchronizedRef.modifyEffect(state, (current) =>
          Effect.gen(function*() {
            const existing = yield* inspect(name)
            if (existing === "foreign") return yield* conflict(name)
            if (existing !== "missing" && name.fixed) return yield* immutable(name.file, "overwrite")
            const item = yield* put(name, body, bytes, name.fixed)
            return [{ entry: item.meta, created: existing === "missing" }, withEntry(current, item)] as const
          })),
      append: (name, addition) =>
        SynchronizedRef.modifyEffect(state, (current) =>
          Effect.gen(function*() {
            const existing = yield* readEntry(name)
            if (existing === undefined) {
              const item = yield* put(name, addition, utf8Length(addition), false)
              const result: AppendResult = { entry: item.meta, created: true, addedBytes: item.meta.bytes }
              return [result, withEntry(current, item)] as const
            }
            const body = appendedBody(existing.body, addition)
            const before = utf8Length(existing.body)
            const bytes = yield* checkAppended(name.file, before, body)
            const item = yield* put(name, body, bytes, false)
            const result: AppendResult = { entry: item.meta, created: false, addedBytes: bytes - before }
            return [result, withEntry(current, item)] as const
          })),
      load: (name) =>
        Effect.flatMap(readEntry(name), (read) =>
          read === undefined
            ? Effect.fail(notFound(name))
            : Effect.succeed({ ...read.indexed.meta, body: read.body })),
      delete: (name) =>
        SynchronizedRef.modifyEffect(state, (current) =>
          Effect.gen(function*() {
            const existing = yield* inspect(name)
            if (existing === "missing") return yield* notFound(name)
            if (existing === "foreign") return yield* conflict(name)
            const removed = yield* Effect.tryPromise({
              try: async () => {
                try {
                  await fs.unlink(pathOf(name))
                  return true
                } catch (error) {
                  if (errorCode(error) === "ENOENT") return false // another process was first
                  throw error
                }
              },
              catch: io(name.file, "delete")
            })
            if (!removed) return yield* notFound(name)
            const index = new Map(current.index)
            index.delete(name.key)
            return [existing.meta, { index, stamp: undefined, view: undefined }] as const
          }))
    }
    return makeService(backend)
  })

/**
 * A store of one Markdown file per entry in `dir` (created if missing),
 * named by the entry's keywords: `async_python.md` holds
 * `keywords: async python`, a blank line, and the body.
 */
export const fileSystem = (dir: string, options: FileSystemOptions = {}): Layer.Layer<MemoryStore, MemoryError> =>
  Layer.effect(MemoryStore, makeFileSystem(dir, options))
