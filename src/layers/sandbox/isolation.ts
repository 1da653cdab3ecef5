/**
 * Deciding, once when the sandbox starts, how tool processes are confined,
 * and wrapping each process accordingly.
 *
 * bubblewrap (`bwrap`) gives every call its own PID namespace: when the
 * call's first process ends, or bwrap is killed (`--die-with-parent`), the
 * kernel kills everything left in the namespace, whatever session or
 * process group it moved to. `processes` calls keep the host's file system
 * as it is (bash may write in the sandbox); `readOnly` calls (evaluate) see
 * the whole file system read-only, a private `/tmp`, and no network.
 *
 * Whether bwrap works is not assumed: an unprivileged user may lack user
 * namespaces, a container may forbid them. A trivial run of the exact
 * `readOnly` setup is the probe; its outcome is kept for the sandbox's life.
 *
 * @module
 */
import { Duration, Effect } from "effect"
import { SandboxSetupError } from "../../domain/errors.js"
import type { Isolation, ProcessSpec } from "../../services/Sandbox.js"
import { findExecutable } from "./executable.js"
import { direct, type Launch, runProcess } from "./process.js"

/** `auto`: isolate where the host can, fall back otherwise; `on`: isolate or refuse to start; `off`: the fallback. */
export type IsolateMode = "auto" | "on" | "off"

/** The isolate modes, for flags and settings. */
export const isolateModes: ReadonlyArray<IsolateMode> = ["auto", "on", "off"]

/** How the sandbox runs processes, as the probe decided. */
export interface Confinement {
  readonly isolation: Isolation
  /** The process to start instead of `spec` (the same one when nothing wraps it). */
  readonly wrap: (spec: ProcessSpec, root: string) => ProcessSpec
  /** How that process relates to the command. */
  readonly launch: Launch
}

const bubblewrapSummary = "bubblewrap (PID namespace; evaluate read-only, no network)"
const offSummary = "off — processes tracked and killed; evaluate guarded by a Python audit hook"

/** No namespace: the process group and the call's tag (see tracking.ts) find what the call started. */
const unconfined = (why: string | undefined): Confinement => ({
  isolation: { mechanism: "off", summary: why === undefined ? offSummary : `${offSummary} (${why})` },
  wrap: (spec) => spec,
  launch: direct
})

/** bwrap's arguments for one process, up to and including `--`. */
export const bubblewrapArgs = (confine: "processes" | "readOnly", cwd: string, root: string): ReadonlyArray<string> => {
  const common = ["--unshare-pid", "--die-with-parent", "--new-session", "--proc", "/proc"]
  if (confine === "processes") {
    // The host's file system as it is, /dev included; only the PID namespace is new.
    return ["--bind", "/", "/", "--dev-bind", "/dev", "/dev", ...common, "--chdir", cwd, "--"]
  }
  return [
    "--ro-bind", "/", "/",
    "--dev", "/dev",
    "--tmpfs", "/tmp",
    // The sandbox may itself live under /tmp: put it back, read-only, over the private /tmp.
    "--ro-bind", root, root,
    "--unshare-net",
    "--unshare-ipc",
    ...common,
    "--chdir", cwd,
    "--"
  ]
}

const bubblewrap = (bwrap: string): Confinement => ({
  isolation: { mechanism: "bubblewrap", summary: bubblewrapSummary },
  wrap: (spec, root) => ({
    ...spec,
    command: bwrap,
    args: [...bubblewrapArgs(spec.confine ?? "processes", spec.cwd ?? root, root), spec.command, ...spec.args]
  }),
  // The namespace holds every process the call starts: no tag needed.
  launch: { track: false, namespace: true }
})

/** Runs `/bin/sh -c :` under both bwrap setups; `undefined` when both work, else why not. */
const probeBubblewrap = (bwrap: string, root: string): Effect.Effect<string | undefined> =>
  Effect.gen(function*() {
    for (const confine of ["readOnly", "processes"] as const) {
      const result = yield* runProcess({
        command: bwrap,
        args: [...bubblewrapArgs(confine, root, root), "/bin/sh", "-c", ":"],
        env: { PATH: "/usr/bin:/bin" },
        timeout: Duration.seconds(10),
        killGrace: Duration.millis(200),
        maxOutputBytes: 2048,
        stderr: "merge"
      }, root).pipe(Effect.either)
      if (result._tag === "Left") return `${bwrap}: ${result.left.detail}`
      if (result.right.exitCode !== 0) {
        const said = result.right.output.trim()
        return `${bwrap} cannot set up a sandbox here${said === "" ? "" : `: ${said.split("\n")[0]}`}`
      }
    }
    return undefined
  })

/**
 * Decides the confinement for `mode`. `bwrap` names the program (default:
 * `bwrap` on PATH). `on` fails with a typed error when bubblewrap does not
 * work; `auto` falls back, saying why.
 */
export const decide = (
  mode: IsolateMode,
  root: string,
  bwrap: string | undefined
): Effect.Effect<Confinement, SandboxSetupError> =>
  Effect.gen(function*() {
    if (mode === "off") return unconfined(undefined)
    const program = bwrap ?? findExecutable("bwrap")
    const problem = program === undefined ? "bubblewrap (bwrap) is not installed" : yield* probeBubblewrap(program, root)
    if (problem === undefined && program !== undefined) return bubblewrap(program)
    if (mode === "on") return yield* Effect.fail(new SandboxSetupError({ reason: "IsolationUnavailable", detail: problem ?? "" }))
    return unconfined(problem)
  })
