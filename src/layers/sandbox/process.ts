/**
 * Running a process the way an agent's tools need it: its own process group
 * (so a timeout or an interruption kills the grandchildren too), stdin
 * closed, a clean environment, output captured up to a cap and drained past
 * it (the child never blocks on a full pipe), SIGTERM then SIGKILL — and,
 * when the call ends, every process still carrying the call's tag killed
 * too, so a `setsid` or a double fork does not outlive it (see tracking.ts).
 *
 * node's child_process is used directly: @effect/platform's CommandExecutor
 * offers no process-group kill with a grace period, and no capped capture.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process"
import { Duration, Effect, Option } from "effect"
import { ProcessError } from "../../domain/errors.js"
import type { ProcessResult, ProcessSpec } from "../../services/Sandbox.js"
import { constants } from "node:os"
import { signalNamespace } from "./namespace.js"
import { killTagged, newTag, tagVariable } from "./tracking.js"

/** How the process started relates to the command it runs. */
export interface Launch {
  /** Tag the tree and, when the call ends, kill whatever still carries the tag (the fallback, see tracking.ts). */
  readonly track: boolean
  /**
   * The process started is bwrap around the command, in a PID namespace:
   * SIGTERM goes to the namespace's processes (not to bwrap, whose death
   * would end them at once), and an exit status above 128 stands for the
   * signal that ended the command, as bwrap reports it.
   */
  readonly namespace: boolean
}

/** A process started as it is, tracked by its group and its tag. */
export const direct: Launch = { track: true, namespace: false }

/** The signal an exit status above 128 stands for, by its number. */
const signalNames = new Map(Object.entries(constants.signals).map(([name, number]) => [number + 128, name]))

/** Output kept up to a byte cap; what comes after is counted and dropped. */
class CappedOutput {
  private readonly chunks: Array<Buffer> = []
  private kept = 0
  dropped = 0

  constructor(private readonly cap: number) {}

  add(chunk: Buffer): void {
    const room = this.cap - this.kept
    if (room <= 0) {
      this.dropped += chunk.length
      return
    }
    const part = chunk.length <= room ? chunk : chunk.subarray(0, room)
    this.chunks.push(part)
    this.kept += part.length
    this.dropped += chunk.length - part.length
  }

  text(): string {
    return Buffer.concat(this.chunks).toString("utf8")
  }
}

const isRunning = (child: ChildProcess): boolean => child.exitCode === null && child.signalCode === null

/** Signals the whole process group; a group already gone is not an error. */
const signalGroup = (child: ChildProcess, signal: NodeJS.Signals): void => {
  if (child.pid === undefined) return
  try {
    process.kill(-child.pid, signal)
  } catch {
    // ESRCH: nobody left in the group.
  }
}

/** Resolves when the child has exited (not necessarily closed its pipes). */
const exited = (child: ChildProcess): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    if (!isRunning(child)) return resume(Effect.void)
    const onExit = () => resume(Effect.void)
    child.once("exit", onExit)
    return Effect.sync(() => child.off("exit", onExit))
  })

/** Resolves when every pipe of the child has closed. */
const closed = (child: ChildProcess): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    const streams = [child.stdout, child.stderr].filter((s): s is NonNullable<typeof s> => s !== null && !s.closed)
    if (streams.length === 0) return resume(Effect.void)
    let open = streams.length
    const onClose = () => {
      if (--open === 0) resume(Effect.void)
    }
    for (const stream of streams) stream.once("close", onClose)
    return Effect.sync(() => {
      for (const stream of streams) stream.off("close", onClose)
    })
  })

/**
 * SIGTERM to the group, SIGKILL after the grace if the leader still runs,
 * then SIGKILL to any straggler: the group's, and every process carrying
 * the call's `tag` wherever it went (another session, reparented to init).
 */
const terminate = (child: ChildProcess, launch: Launch, tag: string, grace: Duration.DurationInput): Effect.Effect<void> =>
  Effect.gen(function*() {
    if (isRunning(child)) {
      if (launch.namespace && child.pid !== undefined) signalNamespace(child.pid, "SIGTERM")
      else signalGroup(child, "SIGTERM")
      // Finalizers run uninterruptibly; the wait must stay interruptible for the grace timeout to end it.
      yield* Effect.timeoutOption(Effect.interruptible(exited(child)), grace)
    }
    signalGroup(child, "SIGKILL")
    yield* exited(child)
    if (launch.track) killTagged(tag)
  }).pipe(Effect.uninterruptible)

const spawnChild = (spec: ProcessSpec, cwd: string, tag: string | undefined): Effect.Effect<ChildProcess, ProcessError> =>
  Effect.async<ChildProcess, ProcessError>((resume) => {
    let child: ChildProcess
    try {
      child = spawn(spec.command, [...spec.args], {
        cwd,
        env: tag === undefined ? { ...spec.env } : { ...spec.env, [tagVariable]: tag },
        stdio: ["ignore", "pipe", spec.stderr === "merge" ? "pipe" : "ignore"],
        detached: true, // its own process group, so the whole tree can be signalled
        windowsHide: true
      })
    } catch (error) {
      return resume(Effect.fail(new ProcessError({ command: spec.command, detail: String(error) })))
    }
    const onSpawn = () => {
      child.off("error", onError)
      resume(Effect.succeed(child))
    }
    const onError = (error: Error) => {
      child.off("spawn", onSpawn)
      resume(Effect.fail(new ProcessError({ command: spec.command, detail: error.message })))
    }
    child.once("spawn", onSpawn)
    child.once("error", onError)
  })

/** Runs `spec` with `root` as the default working directory, started as `launch` says. */
export const runProcess = (spec: ProcessSpec, root: string, launch: Launch = direct): Effect.Effect<ProcessResult, ProcessError> =>
  Effect.scoped(Effect.gen(function*() {
    const startedAt = Date.now()
    const tag = newTag()
    // Released on every exit path: a finished leader's stragglers, a timeout, an interruption.
    const child = yield* Effect.acquireRelease(
      spawnChild(spec, spec.cwd ?? root, launch.track ? tag : undefined),
      (child) => terminate(child, launch, tag, spec.killGrace)
    )
    const output = new CappedOutput(spec.maxOutputBytes)
    child.stdout?.on("data", (chunk: Buffer) => output.add(chunk))
    child.stderr?.on("data", (chunk: Buffer) => output.add(chunk))
    const finished = yield* Effect.timeoutOption(exited(child), spec.timeout)
    const timedOut = Option.isNone(finished)
    // The leader is done (or out of time): no process of its group outlives the call.
    yield* terminate(child, launch, tag, spec.killGrace)
    yield* Effect.timeoutOption(closed(child), Duration.seconds(1))
    const reported = launch.namespace && child.exitCode !== null ? signalNames.get(child.exitCode) : undefined
    return {
      exitCode: reported === undefined ? child.exitCode ?? undefined : undefined,
      signal: reported ?? child.signalCode ?? undefined,
      output: output.text(),
      droppedBytes: output.dropped,
      timedOut,
      durationMillis: Date.now() - startedAt
    }
  }))
