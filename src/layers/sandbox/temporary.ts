/**
 * The sandbox's temporary files: `<target>.easyai-<pid>-<hex>.tmp`, written
 * beside a file and renamed over it. A writer that dies between the two
 * (SIGKILL, power loss) leaves one behind; these helpers tell them from the
 * model's files, so listings hide them, and tell which are stale, so the
 * next write into their directory removes them.
 *
 * @module
 */
import { randomBytes } from "node:crypto"
import { errorCode } from "../../domain/errorText.js"

const marker = ".easyai-"
const suffix = ".tmp"
const hexLength = 12

/** A fresh temporary name for `target`, carrying this process's id. */
export const temporaryName = (target: string): string =>
  `${target}${marker}${process.pid}-${randomBytes(hexLength / 2).toString("hex")}${suffix}`

const isHex = (text: string): boolean =>
  text.length === hexLength && [...text].every((char) => (char >= "0" && char <= "9") || (char >= "a" && char <= "f"))

const isDecimal = (text: string): boolean =>
  text.length > 0 && text.length <= 10 && text[0] !== "0" && [...text].every((char) => char >= "0" && char <= "9")

/**
 * The writer's process id when `name` is one of our temporary files
 * (`null` for the older form without one, `<target>.easyai-<hex>.tmp`),
 * `undefined` when it is not one.
 */
export const writerOf = (name: string): number | null | undefined => {
  const at = name.lastIndexOf(marker)
  if (at <= 0 || !name.endsWith(suffix)) return undefined
  const middle = name.slice(at + marker.length, name.length - suffix.length)
  const dash = middle.indexOf("-")
  if (dash === -1) return isHex(middle) ? null : undefined
  const pid = middle.slice(0, dash)
  return isDecimal(pid) && isHex(middle.slice(dash + 1)) ? Number(pid) : undefined
}

/** Whether `name` is one of our temporary files, which the model is never shown. */
export const isTemporary = (name: string): boolean => writerOf(name) !== undefined

/** A temporary file untouched this long, whose writer is gone, is left over. */
export const staleAfterMillis = 10 * 60_000
/** A temporary file untouched this long is left over whoever wrote it (a writer writes once, then renames). */
export const abandonedAfterMillis = 24 * 60 * 60_000

/** Whether process `pid` runs (one we may not signal still runs). */
const running = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return errorCode(error) === "EPERM"
  }
}

/**
 * Whether a temporary file last modified `ageMillis` ago may be removed: its
 * writer (by process id) no longer runs and it has not changed for
 * {@link staleAfterMillis}, or it has not changed for
 * {@link abandonedAfterMillis}. A live writer keeps its file: its process
 * runs, and it renames the file away within moments of creating it.
 */
export const isStale = (writer: number | null, ageMillis: number): boolean =>
  ageMillis >= abandonedAfterMillis || (ageMillis >= staleAfterMillis && writer !== null && !running(writer))
