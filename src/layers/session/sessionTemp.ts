/**
 * The temporary files the session file is written through, named after the
 * process that writes them, so the ones a killed writer left behind can be
 * told apart from ones a live writer is still filling.
 *
 * A temporary file is `.easyai_session.<space>-<pid>.<uuid>.tmp`. `<space>`
 * names the pid space the writer ran in (on Linux the kernel's boot and the
 * pid namespace; elsewhere the host), so a pid is only ever looked up where it
 * means the same process. The rule that removes one: same pid space, not this
 * process, and no process with that pid exists (`kill(pid, 0)` says ESRCH).
 * A live writer is a process that exists, so its file is never removed; a
 * pid reused by some other process only keeps a dead writer's file a while
 * longer. Files of other pid spaces, and of any other name, are left alone.
 *
 * @module
 */
import { Effect } from "effect"
import { createHash, randomUUID } from "node:crypto"
import { readFileSync, readlinkSync } from "node:fs"
import { readdir, rm } from "node:fs/promises"
import { hostname } from "node:os"
import * as path from "node:path"
import { sessionFileName } from "./sessionFileName.js"

/**
 * What the pid space is called where this process runs. On Linux without a
 * readable /proc there is no name that is safe to share, so the space is
 * this process's own: its files are then never taken for another's.
 */
const pidSpaceName = (): string => {
  if (process.platform !== "linux") return `host:${hostname()}`
  try {
    return `linux:${readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim()}:${readlinkSync("/proc/self/ns/pid")}`
  } catch {
    return `unshared:${randomUUID()}`
  }
}

/** This process's pid space, as it appears in the temporary files' names. */
export const pidSpace: string = createHash("sha256").update(pidSpaceName()).digest("hex").slice(0, 12)

/** A fresh temporary file's name for the writer `pid` (by default this process). */
export const temporaryName = (pid: number = process.pid, space: string = pidSpace): string =>
  `${sessionFileName}.${space}-${pid}.${randomUUID()}.tmp`

/** Whether a process with this pid exists (one we may not signal exists too). */
const exists = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return !(error instanceof Error && "code" in error && error.code === "ESRCH")
  }
}

/** Whether `name` is a temporary file whose writer is gone (see the rule above). */
export const isOrphan = (name: string): boolean => {
  const prefix = `${sessionFileName}.${pidSpace}-`
  if (!name.startsWith(prefix) || !name.endsWith(".tmp")) return false
  const [pidText, uuid, ...rest] = name.slice(prefix.length, -".tmp".length).split(".")
  if (uuid === undefined || rest.length > 0 || !/^[0-9]+$/.test(pidText ?? "")) return false
  const pid = Number(pidText)
  return Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && !exists(pid)
}

/**
 * Removes the temporary files in `dir` that killed writers left behind. A
 * failure to list or remove one changes nothing for the chat, so it is logged
 * and the chat goes on.
 */
export const removeOrphans = (dir: string): Effect.Effect<void> =>
  Effect.tryPromise(async () => {
    const orphans = (await readdir(dir)).filter(isOrphan)
    await Promise.all(orphans.map((name) => rm(path.join(dir, name), { force: true })))
  }).pipe(Effect.catchAll((error) => Effect.logDebug(`stale session temporaries in ${dir} were not removed: ${String(error)}`)))
