/**
 * The `Sandbox` service: everything that touches the host on the model's
 * behalf, so containment, limits and process hygiene live in one place.
 *
 * Paths are the model's view: a virtual `/` that is the sandbox root. This
 * is containment against mistakes and prompt-injected paths. Processes run
 * with the agent's own privileges, with an explicit environment, and — where
 * the host allows it ({@link Isolation}) — in a PID namespace that dies with
 * the call; `readOnly` processes also see the whole file system read-only
 * and have no network.
 *
 * @module
 */
import { Context, type Duration, type Effect } from "effect"
import type { FileError, ProcessError, SandboxViolation } from "../domain/errors.js"

/** A path inside the sandbox: as the model writes it (`virtual`) and on disk (`real`). */
export interface ResolvedPath {
  /** Normalized, `/`-rooted, e.g. `/docs/spec.md`. */
  readonly virtual: string
  /** Absolute path on the host, under the root. */
  readonly real: string
}

/** What `stat` reports. */
export interface FileInfo {
  readonly path: string
  readonly type: "File" | "Directory" | "Other"
  readonly size: number
  readonly modifiedMillis: number
}

/** One directory entry. */
export interface DirectoryEntry {
  readonly name: string
  /** A symbolic link is `Other`: listings never follow links. */
  readonly type: "File" | "Directory" | "Other"
  /** Bytes, for a file; 0 otherwise. */
  readonly size: number
}

/** What `list` shows of a directory: its first entries by name, and how many it holds. */
export interface DirectoryListing {
  /** At most the asked-for number of entries, sorted by name. */
  readonly entries: ReadonlyArray<DirectoryEntry>
  /** Every entry the directory holds, shown or not. */
  readonly total: number
}

/** How to run a process. */
export interface ProcessSpec {
  /** An absolute executable path; no PATH search happens. */
  readonly command: string
  readonly args: ReadonlyArray<string>
  /** Working directory on the host. Default: the sandbox root. */
  readonly cwd?: string
  /** The child's whole environment: nothing is inherited that is not listed here. */
  readonly env: Readonly<Record<string, string>>
  /** Wall-clock limit; the process group gets SIGTERM, then SIGKILL after `killGrace`. */
  readonly timeout: Duration.DurationInput
  /** Grace between SIGTERM and SIGKILL. */
  readonly killGrace: Duration.DurationInput
  /** Output kept; the rest is read and dropped so the child never blocks on a full pipe. */
  readonly maxOutputBytes: number
  /** `merge` interleaves stderr into the output; `discard` drops it. */
  readonly stderr: "merge" | "discard"
  /**
   * `processes` (the default): the process keeps its view of the file system,
   * and none of the processes it starts outlives the call. `readOnly`: also,
   * under an OS sandbox, the whole file system read-only, a private `/tmp`
   * and no network.
   */
  readonly confine?: "processes" | "readOnly"
}

/** How tool processes are confined on this host, decided once when the sandbox starts. */
export interface Isolation {
  /**
   * `bubblewrap`: each call in its own PID namespace (and `readOnly` calls in
   * a read-only, network-less one). `off`: no namespace; every process a
   * call starts is tracked (its process group and a per-call tag in its
   * environment) and killed when the call ends.
   */
  readonly mechanism: "bubblewrap" | "off"
  /** One line for a person, e.g. `bubblewrap (PID namespace; evaluate read-only, no network)`. */
  readonly summary: string
}

/** How a process ended. */
export interface ProcessResult {
  /** The exit code, or `undefined` when a signal ended it. */
  readonly exitCode: number | undefined
  /** The signal that ended it, if any. */
  readonly signal: string | undefined
  /** What it wrote (stdout, plus stderr when merged), up to the cap. */
  readonly output: string
  /** Bytes written past the cap and dropped. */
  readonly droppedBytes: number
  /** Whether the timeout ended it. */
  readonly timedOut: boolean
  readonly durationMillis: number
}

/** The sandbox's operations. */
export interface Service {
  /** The sandbox root on the host (absolute, symlinks resolved). */
  readonly root: string
  /**
   * Resolves a model path: component by component, re-rooted, `..` never
   * above the root, symlinks followed only while they stay inside it.
   */
  readonly resolve: (path: string) => Effect.Effect<ResolvedPath, SandboxViolation>
  readonly stat: (path: string) => Effect.Effect<FileInfo, SandboxViolation | FileError>
  /**
   * Reads a whole file, refusing one larger than `maxBytes`. Only a regular
   * file is read: a named pipe, socket or device is refused without being
   * waited on.
   */
  readonly readFile: (path: string, maxBytes: number) => Effect.Effect<Uint8Array, SandboxViolation | FileError>
  /** Reads up to `length` bytes from `offset`, and reports the file size. */
  readonly readRange: (
    path: string,
    offset: number,
    length: number
  ) => Effect.Effect<{ readonly bytes: Uint8Array; readonly size: number }, SandboxViolation | FileError>
  /**
   * Writes a file atomically (a temporary file renamed into place), creating
   * parent directories. A failed or interrupted write leaves no temporary
   * file behind.
   */
  readonly writeFile: (path: string, data: Uint8Array | string) => Effect.Effect<void, SandboxViolation | FileError>
  /**
   * The first `limit` entries of a directory by name, and how many it holds:
   * only the entries shown are examined, so a huge directory costs what is
   * shown. Temporary files of writes in progress are not entries.
   */
  readonly list: (path: string, limit: number) => Effect.Effect<DirectoryListing, SandboxViolation | FileError>
  /**
   * Every file under `path` (recursively, not following symbolic links), as
   * virtual paths, sorted; at most `limit`.
   */
  readonly walk: (path: string, limit: number) => Effect.Effect<ReadonlyArray<string>, SandboxViolation | FileError>
  /**
   * Runs a process confined as {@link isolation} says; when the call ends (by
   * itself, by timeout or by interruption) every process it started is gone.
   */
  readonly run: (spec: ProcessSpec) => Effect.Effect<ProcessResult, ProcessError>
  /** How processes are confined here. */
  readonly isolation: Isolation
  /**
   * The environment a tool process gets: a short pass-through list (PATH,
   * HOME, locale, terminal, user, shell, TMPDIR) and the variables the
   * operator named, read now; never easyai's own `EASYAI_*` variables.
   */
  readonly toolEnv: Effect.Effect<Readonly<Record<string, string>>>
}

/** The host, seen through the sandbox. */
export class Sandbox extends Context.Tag("easyai/Sandbox")<Sandbox, Service>() {}
