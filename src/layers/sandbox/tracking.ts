/**
 * The fallback that finds every process a call started when no PID
 * namespace holds them: each call's processes carry a random tag in their
 * environment (inherited by every descendant, through `setsid`, double
 * forks and reparenting to init), and when the call ends every process
 * whose `/proc/PID/environ` holds the tag is killed.
 *
 * A process that replaces its environment at `exec` (`env -i …`) drops the
 * tag; its process group is still killed, but a new session started that
 * way escapes. The PID namespace (bubblewrap) has no such gap.
 *
 * @module
 */
import { randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { processIds } from "./procfs.js"

/** The variable that carries a call's tag. */
export const tagVariable = "EASYAI_TOOL_CALL"

/** A fresh tag for one call. */
export const newTag = (): string => randomBytes(12).toString("hex")

/** The processes (other than this one) whose environment carries `tag`; none where there is no /proc. */
const tagged = (tag: string): ReadonlyArray<number> => {
  const needle = Buffer.from(`${tagVariable}=${tag}\0`)
  const found: Array<number> = []
  for (const pid of processIds()) {
    if (pid === process.pid) continue
    try {
      // A zombie's environ reads empty: it is dead already and needs no signal.
      const environ = readFileSync(`/proc/${pid}/environ`)
      if (environ.includes(needle)) found.push(pid)
    } catch {
      // gone, or not ours to read
    }
  }
  return found
}

/** Most sweeps: a tree that forks faster than it is killed still ends, each sweep catching the newborns. */
const maxSweeps = 50

/** SIGKILLs every process carrying `tag`, sweeping until one finds none. */
export const killTagged = (tag: string): void => {
  for (let sweep = 0; sweep < maxSweeps; sweep++) {
    const pids = tagged(tag)
    if (pids.length === 0) return
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL")
      } catch {
        // already gone
      }
    }
  }
}
