/**
 * A bounded reader of text files, shared by the `AGENTS.md` loader and the
 * skills loader: a FIFO or a device is refused before it is opened, and
 * never more than the asked-for bytes are read.
 *
 * @module
 */
import * as fs from "node:fs/promises"
import { Effect } from "effect"
import { readUpTo, withRegular } from "../files/regularFile.js"
import { errorCode, errorText } from "../../domain/errorText.js"

/** What {@link readTextFile} found. */
export type TextFileRead =
  /** No file at that path (or a path component is not a directory). */
  | { readonly _tag: "Missing" }
  /** Something is there but it cannot be read as text. */
  | {
    readonly _tag: "Problem"
    readonly reason: "NotAFile" | "NotUtf8" | "Unreadable"
    /** A sentence for the operator, without the path. */
    readonly detail: string
  }
  /** The text of the first `maxBytes` bytes, decoded as UTF-8. */
  | {
    readonly _tag: "Text"
    readonly text: string
    /** The file's size in bytes. */
    readonly size: number
    /** Whether `text` is the whole file; when false, `text` stops at a character boundary. */
    readonly complete: boolean
  }



const problem = (reason: "NotAFile" | "NotUtf8" | "Unreadable", detail: string): TextFileRead => ({
  _tag: "Problem",
  reason,
  detail
})

const readHead = async (path: string, maxBytes: number): Promise<TextFileRead> => {
  try {
    const stats = await fs.stat(path)
    if (!stats.isFile()) return problem("NotAFile", "is not a regular file")
  } catch (error) {
    const code = errorCode(error)
    if (code === "ENOENT" || code === "ENOTDIR") return { _tag: "Missing" }
    return problem("Unreadable", `cannot be read: ${errorText(error)}`)
  }
  try {
    // Opened without blocking and checked on the descriptor: a FIFO swapped in after the check does not hang.
    return await withRegular(path, async (handle, stats) => {
      // One byte past the limit tells a file of exactly `maxBytes` from a longer one, even one that grew.
      const buffer = await readUpTo(handle, maxBytes)
      const complete = buffer.length <= maxBytes
      const bytes = buffer.subarray(0, Math.min(buffer.length, maxBytes))
      try {
        // `stream` keeps a character cut by the limit out of the text instead of failing on it.
        const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: !complete })
        return { _tag: "Text", text, size: Math.max(Number(stats.size), buffer.length), complete }
      } catch {
        return problem("NotUtf8", "is not valid UTF-8")
      }
    }, () => problem("NotAFile", "is not a regular file"), { followLinks: true })
  } catch (error) {
    return problem("Unreadable", `cannot be read: ${errorText(error)}`)
  }
}

/**
 * Reads at most `maxBytes` bytes of a text file. Never fails: a missing
 * file, a directory, a device, unreadable bytes and invalid UTF-8 are all
 * values of {@link TextFileRead}. A leading byte-order mark is kept; callers
 * that care strip it.
 */
export const readTextFile = (path: string, maxBytes: number): Effect.Effect<TextFileRead> =>
  Effect.promise(() => readHead(path, maxBytes)) // never rejects: every failure is a value
