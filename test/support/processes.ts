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

/** A `sleep` argument no other process uses, so the processes running it are found by their command line. */
export const uniqueSleep = (): string => `${3000 + Math.floor(Math.random() * 5000)}.${Math.floor(Math.random() * 1e6)}`

/** Waits (up to 30 s) for processes whose command line contains `marker`, and returns them. */
export const processesWith = (marker: string): Effect.Effect<ReadonlyArray<number>, Error> =>
  Effect.gen(function*() {
    for (let attempt = 0; attempt < 600; attempt++) {
      const found = pidsWith(marker)
      if (found.length > 0) return found
      yield* Effect.sleep(Duration.millis(50))
    }
    return yield* Effect.fail(new Error(`no process ran ${marker} within 30 s`))
  })

/** Waits (up to 10 s) for every one of `pids` to be gone; the ones still running after that. */
export const stillRunning = (pids: ReadonlyArray<number>): Effect.Effect<ReadonlyArray<number>> =>
  Effect.gen(function*() {
    for (let attempt = 0; attempt < 200 && pids.some(alive); attempt++) yield* Effect.sleep(Duration.millis(50))
    return pids.filter(alive)
  })
