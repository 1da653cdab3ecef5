/**
 * Opening a file the model named, for reading, without letting it wedge the
 * process: the one way the sandbox and the memory store open files.
 *
 * A plain `open(2)` of a FIFO blocks until a writer appears, and node runs
 * it on one of libuv's four pool threads: four such opens and every file
 * operation of the process hangs, SIGTERM included. So the file is opened
 * with `O_NONBLOCK` (a FIFO opens at once, a regular file reads as usual),
 * `O_NOFOLLOW` (a symbolic link in the last component is refused, never
 * followed), `O_NOCTTY` (a terminal never becomes the controlling one), and
 * the OPENED descriptor is `fstat`ed: only a regular file is read. Whatever
 * was swapped in between a check and the open, what is read is what was
 * checked.
 *
 * @module
 */
import { constants } from "node:fs"
import type { BigIntStats } from "node:fs"
import * as fs from "node:fs/promises"
import { errorCode } from "../../domain/errorText.js"

/** The flags every read on the model's behalf opens with. */
export const readFlags = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW | constants.O_NOCTTY

/** What a path holds when it is not a regular file. */
export type SpecialKind = "Directory" | "SymbolicLink" | "Fifo" | "Socket" | "Device"

/** What {@link openRegular} found. */
export type Opened =
  | {
    readonly _tag: "Regular"
    /** Open for reading; the caller closes it. */
    readonly handle: fs.FileHandle
    /** The opened descriptor's own stats. */
    readonly stats: BigIntStats
  }
  | { readonly _tag: "Special"; readonly kind: SpecialKind }

const kindOf = (stats: BigIntStats): SpecialKind =>
  stats.isDirectory()
    ? "Directory"
    : stats.isFIFO()
    ? "Fifo"
    : stats.isSocket()
    ? "Socket"
    : stats.isSymbolicLink()
    ? "SymbolicLink"
    : "Device"

/** A sentence naming what a special file is, e.g. "a named pipe (FIFO)". */
export const describeKind = (kind: SpecialKind): string => {
  switch (kind) {
    case "Directory":
      return "a directory"
    case "SymbolicLink":
      return "a symbolic link"
    case "Fifo":
      return "a named pipe (FIFO)"
    case "Socket":
      return "a socket"
    case "Device":
      return "a device"
  }
}

/** How {@link openRegular} opens. */
export interface OpenOptions {
  /**
   * Follow a symbolic link in the last component. Default false: files on
   * the model's behalf never follow one. An operator's own files (an
   * `AGENTS.md`, a skill, a manifest) may be links by design.
   */
  readonly followLinks?: boolean
}

/**
 * Opens `path` for reading if, and only if, the opened descriptor is a
 * regular file; otherwise says what is there (closing what it opened).
 * Other failures (`ENOENT`, `EACCES`, …) are thrown as node threw them.
 */
export const openRegular = async (path: string, options: OpenOptions = {}): Promise<Opened> => {
  let handle: fs.FileHandle
  try {
    handle = await fs.open(path, options.followLinks === true ? readFlags & ~constants.O_NOFOLLOW : readFlags)
  } catch (error) {
    switch (errorCode(error)) {
      case "ELOOP":
        return { _tag: "Special", kind: "SymbolicLink" } // O_NOFOLLOW met a link
      case "ENXIO":
        return { _tag: "Special", kind: "Socket" } // a socket cannot be opened; a FIFO with O_NONBLOCK can
      case "EISDIR":
        return { _tag: "Special", kind: "Directory" }
      default:
        throw error
    }
  }
  try {
    const stats = await handle.stat({ bigint: true })
    if (stats.isFile()) return { _tag: "Regular", handle, stats }
    await handle.close()
    return { _tag: "Special", kind: kindOf(stats) }
  } catch (error) {
    await handle.close()
    throw error
  }
}

/**
 * Runs `use` on `path` opened by {@link openRegular}, and closes it; when
 * it is not a regular file, answers `special` with what is there instead.
 */
export const withRegular = async <A, B>(
  path: string,
  use: (handle: fs.FileHandle, stats: BigIntStats) => Promise<A>,
  special: (kind: SpecialKind) => B,
  options: OpenOptions = {}
): Promise<A | B> => {
  const opened = await openRegular(path, options)
  if (opened._tag === "Special") return special(opened.kind)
  try {
    return await use(opened.handle, opened.stats)
  } finally {
    await opened.handle.close()
  }
}

/**
 * Reads from the start of an open file, at most `maxBytes + 1` bytes: the
 * extra byte tells a file of exactly `maxBytes` from one that grew past it
 * after it was measured.
 */
export const readUpTo = async (handle: fs.FileHandle, maxBytes: number): Promise<Buffer> => {
  const chunks: Array<Buffer> = []
  let total = 0
  while (total <= maxBytes) {
    const chunk = Buffer.alloc(Math.min(1_048_576, maxBytes + 1 - total))
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, total)
    if (bytesRead === 0) break
    chunks.push(chunk.subarray(0, bytesRead))
    total += bytesRead
  }
  return Buffer.concat(chunks, total)
}
