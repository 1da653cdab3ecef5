import { readdirSync, readFileSync } from "node:fs"
import { Duration, Effect } from "effect"

/** Whether a process still runs; a zombie (dead, waiting for a parent that never reaps it) does not. */
export const alive = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.charAt(stat.lastIndexOf(")") + 2) !== "Z"
  } catch {
    return false
  }
}

/**
 * Whether the process is gone within a few seconds: SIGKILL is delivered
 * asynchronously, so the check waits for it rather than racing it.
 */
export const goneSoon = (pid: number): Effect.Effect<boolean> =>
  Effect.gen(function*() {
    for (let attempt = 0; attempt < 200; attempt++) {
      if (!alive(pid)) return true
      yield* Effect.sleep(Duration.millis(10))
    }
    return false
  })

/** The processes whose command line contains `marker`, this process aside. */
export const pidsWith = (marker: string): ReadonlyArray<number> =>
  readdirSync("/proc").filter((name) => /^\d+$/.test(name)).map(Number).filter((pid) => {
    if (pid === process.pid) return false
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").includes(marker) && alive(pid)
    } catch {
      return false
    }
  })
