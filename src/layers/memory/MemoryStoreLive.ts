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
import { constants } from "node:fs"
import type { BigIntStats } from "node:fs"
import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import { Clock, Effect, Layer, SynchronizedRef } from "effect"
import {
  type AppendResult,
  appendedBody,
  checkAppended,
  checkBody,
  clampLimit,
  type EntryMeta,
  entryName,
  type EntryName,
  immutable,
  keywordsLimit,
  listEntries,
  listLimit,
  listPrefix,
  type MemoryEntry,
  MemoryError,
  notFound,
  parseEntry,
  parseFileName,
  queryKeywords,
  renderEntry,
  type SaveResult,
  searchEntries,
  searchLimit,
  topKeywords,
  utf8Length,
  vocabularyOf
} from "../../domain/memory.js"
import type { MemoryVocabulary } from "../../domain/SystemPrompt.js"
import { MemoryStore, type SaveOptions, type Service } from "../../services/MemoryStore.js"

/** What the views need from an implementation: the entries and their vocabulary, current. */
interface Snapshot {
  readonly entries: ReadonlyArray<EntryMeta>
  readonly vocabulary: MemoryVocabulary
}

/** The storage half of a store; validation and views are shared. */
interface Backend {
  readonly snapshot: Effect.Effect<Snapshot, MemoryError>
  /** The last vocabulary known, for when a refresh fails (the vocabulary is advisory). */
  readonly lastVocabulary: Effect.Effect<MemoryVocabulary>
  readonly save: (name: EntryName, body: string, bytes: number) => Effect.Effect<SaveResult, MemoryError>
  readonly append: (name: EntryName, addition: string) => Effect.Effect<AppendResult, MemoryError>
  readonly load: (name: EntryName) => Effect.Effect<MemoryEntry, MemoryError>
  readonly delete: (name: EntryName) => Effect.Effect<EntryMeta, MemoryError>
}

/** Validates the arguments, then hands validated names and bodies to the backend. */
const makeService = (backend: Backend): Service => ({
  vocabulary: backend.snapshot.pipe(
    Effect.map((snapshot) => snapshot.vocabulary),
    Effect.catchAll((error) =>
      Effect.logWarning("memory vocabulary refresh failed; using the last one known").pipe(
        Effect.annotateLogs({ error: error.message }),
        Effect.zipRight(backend.lastVocabulary)
      )
    )
  ),
  save: Effect.fn("MemoryStore.save")(function*(keywords: ReadonlyArray<string>, body: string, options: SaveOptions = {}) {
    const name = yield* entryName(keywords, options)
    const bytes = yield* checkBody(body, name.file)
    return yield* backend.save(name, body, bytes)
  }),
  append: Effect.fn("MemoryStore.append")(function*(keywords: ReadonlyArray<string>, body: string) {
    const name = yield* entryName(keywords)
    if (name.fixed) return yield* immutable(name.file, "append to")
    yield* checkBody(body, name.file)
    return yield* backend.append(name, body)
  }),
  search: Effect.fn("MemoryStore.search")(function*(keywords: ReadonlyArray<string>, limit?: number) {
    const query = yield* queryKeywords(keywords)
    const { entries } = yield* backend.snapshot
    return searchEntries(entries, query, clampLimit(limit, searchLimit))
  }),
  load: Effect.fn("MemoryStore.load")(function*(keywords: ReadonlyArray<string>) {
    return yield* backend.load(yield* entryName(keywords))
  }),
  list: Effect.fn("MemoryStore.list")(function*(prefix: string = "", limit?: number) {
    const normalised = yield* listPrefix(prefix)
    const { entries } = yield* backend.snapshot
    return listEntries(entries, normalised, clampLimit(limit, listLimit))
  }),
  delete: Effect.fn("MemoryStore.delete")(function*(keywords: ReadonlyArray<string>) {
    const name = yield* entryName(keywords)
    if (name.fixed) return yield* immutable(name.file, "delete")
    return yield* backend.delete(name)
  }),
  keywords: Effect.fn("MemoryStore.keywords")(function*(limit?: number, minCount?: number) {
    const { vocabulary } = yield* backend.snapshot
    return topKeywords(vocabulary, clampLimit(limit, keywordsLimit), Math.max(1, minCount ?? 1))
  })
})

// ---------------------------------------------------------------------------
// In memory

interface Stored {
  readonly meta: EntryMeta
  readonly body: string
}

interface MemoryState {
  readonly entries: ReadonlyMap<string, Stored>
  /** The entries and their vocabulary, computed on demand and dropped by every write. */
  readonly view: Snapshot | undefined
}

const viewOf = (entries: ReadonlyArray<EntryMeta>): Snapshot => ({ entries, vocabulary: vocabularyOf(entries) })

const metaOf = (name: EntryName, bytes: number, modifiedMillis: number): EntryMeta => ({
  key: name.key,
  file: name.file,
  keywords: name.keywords,
  fixed: name.fixed,
  bytes,
  modifiedMillis
})

const conflict = (name: EntryName): MemoryError =>
  new MemoryError({
    reason: "Conflict",
    file: name.file,
    detail: `"${name.file}" exists in the memory directory but is not a memory entry (no "keywords:" first line): ` +
      `choose other keywords, or ask the operator about the file`
  })

const makeInMemory = Effect.gen(function*() {
  const state = yield* SynchronizedRef.make<MemoryState>({ entries: new Map(), view: undefined })
  const withEntry = (current: MemoryState, stored: Stored): MemoryState => ({
    entries: new Map(current.entries).set(stored.meta.key, stored),
    view: undefined
  })

  const snapshot = SynchronizedRef.modify(state, (current): [Snapshot, MemoryState] => {
    const view = current.view ?? viewOf([...current.entries.values()].map((stored) => stored.meta))
    return [view, { ...current, view }]
  })

  const backend: Backend = {
    snapshot,
    lastVocabulary: Effect.map(snapshot, (s) => s.vocabulary),
    save: (name, body, bytes) =>
      SynchronizedRef.modifyEffect(state, (current) =>
        Effect.gen(function*() {
          const existing = current.entries.get(name.key)
          if (existing !== undefined && name.fixed) return yield* immutable(name.file, "overwrite")
          const stored = { meta: metaOf(name, bytes, yield* Clock.currentTimeMillis), body }
          return [{ entry: stored.meta, created: existing === undefined }, withEntry(current, stored)] as const
        })),
    append: (name, addition) =>
      SynchronizedRef.modifyEffect(state, (current) =>
        Effect.gen(function*() {
          const existing = current.entries.get(name.key)
          const now = yield* Clock.currentTimeMillis
          if (existing === undefined) {
            const stored = { meta: metaOf(name, utf8Length(addition), now), body: addition }
            const result: AppendResult = { entry: stored.meta, created: true, addedBytes: stored.meta.bytes }
            return [result, withEntry(current, stored)] as const
          }
          const body = appendedBody(existing.body, addition)
          const bytes = yield* checkAppended(name.file, existing.meta.bytes, body)
          const stored = { meta: metaOf(name, bytes, now), body }
          const result: AppendResult = { entry: stored.meta, created: false, addedBytes: bytes - existing.meta.bytes }
          return [result, withEntry(current, stored)] as const
        })),
    load: (name) =>
      Effect.flatMap(SynchronizedRef.get(state), (current) => {
        const stored = current.entries.get(name.key)
        return stored === undefined ? Effect.fail(notFound(name)) : Effect.succeed({ ...stored.meta, body: stored.body })
      }),
    delete: (name) =>
      SynchronizedRef.modifyEffect(state, (current) => {
        const stored = current.entries.get(name.key)
        if (stored === undefined) return Effect.fail(notFound(name))
        const entries = new Map(current.entries)
        entries.delete(name.key)
        return Effect.succeed([stored.meta, { entries, view: undefined }] as const)
      })
  }
  return makeService(backend)
})

/** A store that lives in this process only: the same rules, no files. */
export const inMemory: Layer.Layer<MemoryStore> = Layer.effect(MemoryStore, makeInMemory)

// ---------------------------------------------------------------------------
// On the file system

/** What {@link FileSystemOptions.onDiskAccess} reports. */
export type DiskAccess =
  /** The directory was listed to refresh the index. */
  | "scan"
  /** An entry file's header was read to index it. */
  | "read"

/** Options of {@link fileSystem}. */
export interface FileSystemOptions {
  /**
   * Internal, for tests: called on every directory listing and every entry
   * header read, so a test can prove that a warm index touches neither.
   */
  readonly onDiskAccess?: (access: DiskAccess) => void
}

/** An indexed entry and the file facts that tell whether it changed. */
interface Indexed {
  readonly meta: EntryMeta
  readonly ino: bigint
  readonly size: bigint
  readonly mtimeNs: bigint
}

/** The directory facts one `stat(2)` gives; any change in them means an entry was added, replaced or removed. */
interface DirStamp {
  readonly ino: bigint
  readonly size: bigint
  readonly mtimeNs: bigint
  readonly ctimeNs: bigint
}

interface FileState {
  readonly index: ReadonlyMap<string, Indexed>
  /** The directory as of the last scan; `undefined` when the next read must scan. */
  readonly stamp: DirStamp | undefined
  /** The entries and their vocabulary, computed on demand and dropped whenever the index changes. */
  readonly view: Snapshot | undefined
}

/**
 * A directory changed this recently may change again within its timestamp
 * granularity (coarse kernel clocks, one-second file systems) without its
 * stamp changing, so such a stamp is not trusted: reads keep scanning (no
 * file is re-read unless it changed) until the directory has been quiet
 * this long.
 */
const racyWindowMillis = 2_000n

/** How many files are inspected at once during a scan (each holds a descriptor). */
const scanConcurrency = 32

/** How much of a file is read to index it: the header line and the blank line after it. */
const headBytes = 4096

/** How large a hand-edited entry file may be before `load` refuses it. */
const fileMaxBytes = 2 * 1024 * 1024

const codeOf = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined

const io = (file: string, verb: string) => (error: unknown): MemoryError =>
  error instanceof MemoryError ? error : new MemoryError({
    reason: "Io",
    file,
    detail: `cannot ${verb} "${file}" in the memory directory: ${error instanceof Error ? error.message : String(error)}`,
    cause: error
  })

const stampOf = (stats: BigIntStats): DirStamp => ({
  ino: stats.ino,
  size: stats.size,
  mtimeNs: stats.mtimeNs,
  ctimeNs: stats.ctimeNs
})

const sameStamp = (a: DirStamp, b: DirStamp): boolean =>
  a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs

const indexedOf = (name: EntryName, stats: BigIntStats, bodyStartBytes: number): Indexed => ({
  meta: metaOf(name, Math.max(0, Number(stats.size) - bodyStartBytes), Number(stats.mtimeMs)),
  ino: stats.ino,
  size: stats.size,
  mtimeNs: stats.mtimeNs
})

const unchanged = (indexed: Indexed, stats: BigIntStats): boolean =>
  indexed.ino === stats.ino && indexed.size === stats.size && indexed.mtimeNs === stats.mtimeNs

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
    const pathOf = (name: EntryName) => nodePath.join(dir, name.file)

    /**
     * What is at an entry's path: the indexed entry (re-read only when
     * `previous` no longer describes the file), nothing, or a file that is
     * not an entry (no header, a symbolic link, a directory).
     */
    const inspect = (name: EntryName, previous?: Indexed) =>
      Effect.tryPromise({
        try: async (): Promise<Indexed | "missing" | "foreign"> => {
          const path = pathOf(name)
          let stats: BigIntStats
          try {
            stats = await fs.lstat(path, { bigint: true })
          } catch (error) {
            if (codeOf(error) === "ENOENT") return "missing"
            throw error
          }
          if (!stats.isFile()) return "foreign"
          if (previous !== undefined && unchanged(previous, stats)) return previous
          access("read")
          let handle: fs.FileHandle
          try {
            handle = await fs.open(path, constants.O_RDONLY | constants.O_NOFOLLOW)
          } catch (error) {
            const code = codeOf(error)
            if (code === "ENOENT") return "missing" // removed since the lstat
            if (code === "ELOOP") return "foreign" // replaced by a symbolic link since the lstat
            throw error
          }
          try {
            const opened = await handle.stat({ bigint: true })
            const buffer = Buffer.alloc(headBytes)
            const { bytesRead } = await handle.read(buffer, 0, headBytes, 0)
            const head = buffer.toString("utf8", 0, bytesRead)
            const parsed = parseEntry(head)
            if (parsed === undefined) return "foreign"
            return indexedOf(name, opened, Buffer.byteLength(head.slice(0, parsed.bodyStart)))
          } finally {
            await handle.close()
          }
        },
        catch: io(name.file, "read")
      })

    const statDir = Effect.tryPromise({
      try: async () => stampOf(await fs.stat(dir, { bigint: true })),
      catch: io(dir, "stat")
    })

    const listNames = Effect.tryPromise({
      try: () => {
        access("scan")
        return fs.readdir(dir)
      },
      catch: io(dir, "list")
    })

    /** Re-lists the directory; keeps what did not change, reads what is new or changed. */
    const rescan = (previous: ReadonlyMap<string, Indexed>) =>
      Effect.gen(function*() {
        const names = (yield* listNames).flatMap((file) => {
          const name = parseFileName(file)
          return name === undefined ? [] : [name]
        })
        const found = yield* Effect.forEach(names, (name) => inspect(name, previous.get(name.key)), {
          concurrency: scanConcurrency
        })
        const index = new Map<string, Indexed>()
        for (const item of found) if (typeof item === "object") index.set(item.meta.key, item)
        const changed = index.size !== previous.size || [...index].some(([key, item]) => previous.get(key) !== item)
        return { index, changed }
      })

    const state = yield* SynchronizedRef.make<FileState>({ index: new Map(), stamp: undefined, view: undefined })

    /** The index, current with the directory; a warm call is one stat. */
    const snapshot = SynchronizedRef.modifyEffect(state, (current) =>
      Effect.gen(function*() {
        const stamp = yield* statDir
        let next = current
        if (current.stamp === undefined || !sameStamp(current.stamp, stamp)) {
          const { changed, index } = yield* rescan(current.index)
          // Compared with the wall clock, not Effect's Clock: kernel timestamps are wall-clock time.
          const quiet = BigInt(Date.now()) * 1_000_000n - stamp.mtimeNs >= racyWindowMillis * 1_000_000n
          next = {
            index: changed ? index : current.index,
            stamp: quiet ? stamp : undefined,
            view: changed ? undefined : current.view
          }
        }
        const view = next.view ?? viewOf([...next.index.values()].map((item) => item.meta))
        return [view, { ...next, view }] as const
      }))

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
    const writeAtomically = (name: EntryName, text: string, modifiedMillis: number, exclusive: boolean) =>
      Effect.tryPromise({
        try: async (): Promise<BigIntStats | "exists"> => {
          const target = pathOf(name)
          const temporary = `${target}.${randomBytes(6).toString("hex")}.tmp`
          const handle = await fs.open(
            temporary,
            constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
            0o644
          )
          try {
            try {
              await handle.writeFile(text, "utf8")
              const modified = new Date(modifiedMillis)
              await handle.utimes(modified, modified)
              await handle.sync()
            } finally {
              await handle.close()
            }
            if (exclusive) {
              try {
                await fs.link(temporary, target)
                return await fs.lstat(target, { bigint: true })
              } catch (error) {
                if (codeOf(error) === "EEXIST") return "exists"
              }
            }
            await fs.rename(temporary, target)
            return await fs.lstat(target, { bigint: true })
          } finally {
            await fs.rm(temporary, { force: true }) // gone already after a rename
          }
        },
        catch: io(name.file, "write")
      })

    const readWhole = (name: EntryName) =>
      Effect.tryPromise({
        try: async (): Promise<{ readonly text: string; readonly stats: BigIntStats } | "missing" | "foreign"> => {
          let handle: fs.FileHandle
          try {
            handle = await fs.open(pathOf(name), constants.O_RDONLY | constants.O_NOFOLLOW)
          } catch (error) {
            const code = codeOf(error)
            if (code === "ENOENT") return "missing"
            if (code === "ELOOP") return "foreign"
            throw error
          }
          try {
            const stats = await handle.stat({ bigint: true })
            if (!stats.isFile()) return "foreign"
            if (stats.size > BigInt(fileMaxBytes)) {
              throw new MemoryError({
                reason: "BodyTooLarge",
                file: name.file,
                detail: `"${name.file}" is ${stats.size} bytes, edited beyond the cap by hand: ask the operator to split it`
              })
            }
            return { text: await handle.readFile("utf8"), stats }
          } finally {
            await handle.close()
          }
        },
        catch: io(name.file, "read")
      })

    /** Reads an entry: its parsed body and index facts, or why there is none. */
    const readEntry = (name: EntryName) =>
      Effect.flatMap(readWhole(name), (read) => {
        if (read === "missing") return Effect.succeed(undefined)
        const parsed = read === "foreign" ? undefined : parseEntry(read.text)
        if (read === "foreign" || parsed === undefined) return Effect.fail(conflict(name))
        return Effect.succeed({
          body: parsed.body,
          indexed: indexedOf(name, read.stats, Buffer.byteLength(read.text.slice(0, parsed.bodyStart)))
        })
      })

    /** Writes a whole entry and returns its index item. */
    const put = (name: EntryName, body: string, bytes: number, exclusive: boolean) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const stats = yield* writeAtomically(name, renderEntry(name.keywords, body), now, exclusive)
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
                  if (codeOf(error) === "ENOENT") return false // another process was first
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
