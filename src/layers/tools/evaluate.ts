/**
 * `evaluate`: Python 3 for computation (the legacy name `python3` still
 * routes here). It runs as `python3 -I -S -E` in the sandbox root behind a
 * preamble that refuses every write-mode open and every read outside the
 * sandbox — a guard against accidents, not an isolation boundary (ctypes,
 * subprocess or closure introspection can get around it).
 *
 * @module
 */
import { accessSync, constants } from "node:fs"
import * as nodePath from "node:path"
import { Duration, Effect, Schema } from "effect"
import * as Tool from "../../domain/Tool.js"
import { ToolResult } from "../../domain/ToolCall.js"
import { Sandbox } from "../../services/Sandbox.js"
import { ToolRegistry } from "../../services/ToolRegistry.js"
import { describeRun } from "./processReport.js"

/** Output kept per run. */
export const evaluateOutputCap = 32 * 1024
export const evaluateDefaultTimeoutSeconds = 10
export const evaluateMaxTimeoutSeconds = 60

/**
 * Wraps `open`, `io.open` and `os.open`: write modes (w, a, x, + in any case)
 * and write flags are refused, and so are paths that resolve outside the
 * working directory (the sandbox root). `__HINT__` names the file-writing
 * tool the model actually has.
 */
const preamble = `
import builtins as _b, io as _io, os as _os, sys as _sys
def _easyai_guard(hint):
    root = _os.path.realpath(_os.getcwd())
    def inside(path):
        if isinstance(path, int):
            return
        name = _os.fsdecode(path) if isinstance(path, bytes) else _os.fspath(path)
        real = _os.path.realpath(name)
        if real != root and not real.startswith(root + _os.sep):
            raise PermissionError("evaluate may only read files inside the sandbox; %r is outside it" % (name,))
    real_open = _b.open
    def guarded_open(file, mode="r", *args, **kwargs):
        if any(c in "wax+" for c in str(mode).lower()):
            raise PermissionError("evaluate is read-only: open(%r, %r) is refused. %s" % (file, mode, hint))
        inside(file)
        return real_open(file, mode, *args, **kwargs)
    _b.open = guarded_open
    _io.open = guarded_open
    real_os_open = _os.open
    write_flags = _os.O_WRONLY | _os.O_RDWR | _os.O_CREAT | _os.O_TRUNC | _os.O_APPEND
    def guarded_os_open(path, flags, *args, **kwargs):
        if flags & write_flags:
            raise PermissionError("evaluate is read-only: os.open with write flags is refused. %s" % (hint,))
        inside(path)
        return real_os_open(path, flags, *args, **kwargs)
    _os.open = guarded_os_open
_easyai_guard(_sys.argv[1])
del _easyai_guard
exec(compile(_sys.argv[2], "<evaluate>", "exec"), {"__name__": "__main__"})
`

const description = `Evaluate Python 3 code for computation and algorithm prototyping; print what you want to see.
FORBIDDEN: writing files, subprocesses, network access, ctypes. Standard-library computation only.
Files inside the sandbox may be READ (open(path) or open(path, "rb")); any write-mode open fails.

Parameters:
  code             Required. A Python 3 program. Output only appears if you print it.
  timeout_seconds  Optional. 1..${evaluateMaxTimeoutSeconds}, default ${evaluateDefaultTimeoutSeconds}.

Output: what the program printed (stdout and stderr, at most ${evaluateOutputCap} bytes), then its exit code.
A traceback shows lines of <evaluate>, numbered from your code's first line.

Examples:
  {"code": "print(sum(i*i for i in range(10)))"}
  {"code": "import csv\\nrows = list(csv.reader(open('data.csv')))\\nprint(len(rows))"}

To create or change a file, use the file-writing tool instead.`

/** The Python interpreter to run, found on PATH once; `undefined` when there is none. */
const findPython = (): string | undefined => {
  for (const directory of (process.env["PATH"] ?? "/usr/bin:/bin").split(nodePath.delimiter)) {
    const candidate = nodePath.join(directory, "python3")
    try {
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {
      // not here
    }
  }
  return undefined
}

/** What the model should use to write files, named as its registered tools spell it. */
const writeHint = (names: ReadonlySet<string>): string =>
  names.has("fs_write")
    ? "To create or change a file, use the fs_write tool."
    : names.has("fs")
    ? "To create or change a file, use fs(action=\"write\")."
    : "You have no file-writing tool: put the content in your reply instead."

/** Builds `evaluate` on the sandbox; its error messages name the write tool registered at call time. */
export const evaluate: Effect.Effect<Tool.Tool, never, Sandbox | ToolRegistry> = Effect.gen(function*() {
  const sandbox = yield* Sandbox
  const registry = yield* ToolRegistry
  const python = findPython()
  return Tool.make({
    name: "evaluate",
    annotations: { readOnly: true, openWorld: false },
    description,
    shortDescription:
      "Evaluate Python 3 code for compute / algorithm prototyping. FORBIDDEN: filesystem, subprocess, network, ctypes. Stdlib compute only.",
    parameters: Schema.Struct({
      code: Schema.String.pipe(Schema.minLength(1)).annotations({ description: "Required. A Python 3 program." }),
      timeout_seconds: Schema.optional(
        Schema.Int.pipe(Schema.between(1, evaluateMaxTimeoutSeconds)).annotations({
          description: `Optional. 1..${evaluateMaxTimeoutSeconds}, default ${evaluateDefaultTimeoutSeconds}.`
        })
      )
    }),
    examples: [{ code: "print(2 ** 100)" }],
    handler: ({ code, timeout_seconds }) =>
      Effect.gen(function*() {
        if (python === undefined) return yield* Tool.fail("Python 3 is not installed on this host; evaluate cannot run.")
        const names = new Set((yield* registry.specs).map((spec) => spec.name))
        const seconds = timeout_seconds ?? evaluateDefaultTimeoutSeconds
        const result = yield* sandbox.run({
          command: python,
          args: ["-I", "-S", "-E", "-c", preamble, writeHint(names), code],
          env: { LANG: "C.UTF-8" },
          timeout: Duration.seconds(seconds),
          killGrace: Duration.seconds(1),
          maxOutputBytes: evaluateOutputCap,
          stderr: "merge"
        })
        const report = describeRun(result, { timeoutMillis: seconds * 1000 })
        return result.exitCode === 0 && !result.timedOut ? ToolResult.ok(report) : ToolResult.error(report)
      })
  })
})
