/**
 * The one way a file is replaced whole: the data goes to a fresh temporary
 * file beside the target, is flushed, and only then is moved over it, so a
 * reader sees the old file or the new one, never a torn one.
 *
 * @module
 */
import { Effect } from "effect"
import { constants } from "node:fs"
import * as fs from "node:fs/promises"
import { errorCode } from "../../domain/errorText.js"

/** How {@link writeFileAtomically} writes. */
export interface AtomicWriteOptions {
  /** Permission bits of the new file. Default `0o644`. */
  readonly mode?: number
  /** Runs on the open temporary file after the data is written, before it is flushed (e.g. to set its times). */
  readonly beforeSync?: (handle: fs.FileHandle) => Promise<void>
  /**
   * Put the file in place only if `target` does not exist yet (a hard link,
   * which fails when the name is taken); on a file system without hard
   * links this falls back to a rename.
   */
  readonly exclusive?: boolean
  /** Aborting stops the write before the file is put in place: the target is left as it was, the temporary file removed. */
  readonly signal?: AbortSignal
}

/**
 * Writes `data` to `temporary` (created here: never a file or a link that is
 * already there), then moves it to `target` in the same directory. The
 * temporary file is removed whatever happens. Resolves to `"exists"` when
 * `exclusive` was asked and `target` was already there; rejects with the
 * signal's reason when it is aborted before the move.
 */
export const writeFileAtomically = async (
  temporary: string,
  target: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {}
): Promise<"written" | "exists"> => {
  const handle = await fs.open(
    temporary,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    options.mode ?? 0o644
  )
  try {
    try {
      await handle.writeFile(data, options.signal === undefined ? {} : { signal: options.signal })
      await options.beforeSync?.(handle)
      await handle.sync()
    } finally {
      await handle.close()
    }
    options.signal?.throwIfAborted()
    if (options.exclusive === true) {
      try {
        await fs.link(temporary, target)
        return "written"
      } catch (error) {
        if (errorCode(error) === "EEXIST") return "exists"
      }
    }
    await fs.rename(temporary, target)
    return "written"
  } finally {
    await fs.rm(temporary, { force: true }) // gone already after a rename
  }
}

/**
 * {@link writeFileAtomically} as an Effect. Interrupted, the write is
 * aborted before its move and awaited until its temporary file is gone, so
 * the old file stays and nothing is left behind once the interruption has
 * completed (a plain `Effect.tryPromise` would let the write finish, and
 * replace the file, after its caller had moved on).
 */
export const writeAtomically = (
  temporary: string,
  target: string,
  data: string | Uint8Array,
  options: Omit<AtomicWriteOptions, "signal"> = {}
): Effect.Effect<"written" | "exists", unknown> =>
  Effect.async((resume) => {
    const controller = new AbortController()
    const running = writeFileAtomically(temporary, target, data, { ...options, signal: controller.signal })
    running.then((written) => resume(Effect.succeed(written)), (error: unknown) => resume(Effect.fail(error)))
    return Effect.promise(() => {
      controller.abort()
      return running.then(() => undefined, () => undefined)
    })
  })
