/**
 * The file store's index of its directory: keywords, size, modification
 * time and inode per entry file, built lazily on first use and refreshed
 * when the directory changed under it (see `MemoryStoreLive.ts`). A warm
 * read is one `stat(2)` of the directory; a changed directory is listed
 * again, and only new or changed files are re-read.
 *
 * @module
 */
import type { BigIntStats } from "node:fs"
import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import { Effect, SynchronizedRef } from "effect"
import { type EntryMeta, type EntryName, MemoryError, parseFileName } from "../../domain/memory.js"
import { parseEntry } from "./entryFile.js"
import { withRegular } from "../files/regularFile.js"
import { metaOf, type Snapshot, viewOf } from "./backend.js"
import { errorCode, errorText } from "../../domain/errorText.js"
import { utf8Length } from "../../domain/utf8.js"


/** What `FileSystemOptions.onDiskAccess` (in `MemoryStoreLive.ts`) reports. */
export type DiskAccess =
  /** The directory was listed to refresh the index. */
  | "scan"
  /** An entry file's header was read to index it. */
  | "read"

/** An indexed entry and the file facts that tell whether it changed. */
export interface Indexed {
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

/** The index, the directory stamp it was built from, and the view of it. */
export interface FileState {
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

/** An I/O failure on `file` as a `MemoryError` (`Io`); a `MemoryError` passes through. */
export const io = (file: string, verb: string) => (error: unknown): MemoryError =>
  error instanceof MemoryError ? error : new MemoryError({
    reason: "Io",
    file,
    detail: `cannot ${verb} "${file}" in the memory directory: ${errorText(error)}`,
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

export const indexedOf = (name: EntryName, stats: BigIntStats, bodyStartBytes: number): Indexed => ({
  meta: metaOf(name, Math.max(0, Number(stats.size) - bodyStartBytes), Number(stats.mtimeMs)),
  ino: stats.ino,
  size: stats.size,
  mtimeNs: stats.mtimeNs
})

const unchanged = (indexed: Indexed, stats: BigIntStats): boolean =>
  indexed.ino === stats.ino && indexed.size === stats.size && indexed.mtimeNs === stats.mtimeNs

/**
 * The index of the entry files in `dir` (a real path): where an entry lives,
 * what is at its path, the index state (serialized by its `SynchronizedRef`)
 * and the snapshot that brings it current. `access` is told of every listing
 * and every header read.
 */
export const makeDirectoryIndex = (dir: string, access: (access: DiskAccess) => void) =>
  Effect.gen(function*() {
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
            if (errorCode(error) === "ENOENT") return "missing"
            throw error
          }
          if (!stats.isFile()) return "foreign"
          if (previous !== undefined && unchanged(previous, stats)) return previous
          access("read")
          try {
            // Opened without blocking and checked on the descriptor: a FIFO or link swapped in since the lstat is "foreign".
            return await withRegular(path, async (handle, opened): Promise<Indexed | "foreign"> => {
              const buffer = Buffer.alloc(headBytes)
              const { bytesRead } = await handle.read(buffer, 0, headBytes, 0)
              const head = buffer.toString("utf8", 0, bytesRead)
              const parsed = parseEntry(head)
              if (parsed === undefined) return "foreign"
              return indexedOf(name, opened, utf8Length(head.slice(0, parsed.bodyStart)))
            }, () => "foreign")
          } catch (error) {
            if (errorCode(error) === "ENOENT") return "missing" // removed since the lstat
            throw error
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

    return { pathOf, inspect, state, snapshot }
  })
