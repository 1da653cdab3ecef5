/**
 * Signalling the processes inside a call's PID namespace but not its init.
 *
 * Under bubblewrap the process started is bwrap; it forks the namespace's
 * init (pid 1 inside), which runs the command. SIGTERM to bwrap or to that
 * init would end the whole namespace at once, leaving the command no grace;
 * so the polite signal goes to every other process of the namespace, and
 * SIGKILL (to bwrap's group) ends the rest after the grace.
 *
 * @module
 */
import { readFileSync, readlinkSync } from "node:fs"
import { processIds } from "./procfs.js"

interface Entry {
  readonly pid: number
  readonly parent: number
  /** The pid in the innermost namespace (the last `NSpid:` field). */
  readonly innermost: number
}

const entries = (): ReadonlyArray<Entry> => {
  const found: Array<Entry> = []
  for (const pid of processIds()) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, "utf8")
      const parent = Number(/^PPid:\s*(\d+)/m.exec(status)?.[1])
      const innermost = Number(/^NSpid:\s*(.*)$/m.exec(status)?.[1]?.trim().split(/\s+/).at(-1))
      found.push({ pid, parent, innermost })
    } catch {
      // gone in the meantime
    }
  }
  return found
}

const namespaceOf = (pid: number): string | undefined => {
  try {
    return readlinkSync(`/proc/${pid}/ns/pid`)
  } catch {
    return undefined
  }
}

/** Sends `signal` to every process of the PID namespace bwrap (`outer`) created, except its init. */
export const signalNamespace = (outer: number, signal: NodeJS.Signals): void => {
  const all = entries()
  const init = all.find((entry) => entry.parent === outer && entry.innermost === 1)
  if (init === undefined) return
  const namespace = namespaceOf(init.pid)
  if (namespace === undefined) return
  for (const entry of all) {
    if (entry.innermost === 1 || namespaceOf(entry.pid) !== namespace) continue
    try {
      process.kill(entry.pid, signal)
    } catch {
      // already gone
    }
  }
}
