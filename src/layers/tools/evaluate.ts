/**
 * `evaluate`: Python 3 for computation (the legacy name `python3` still
 * routes here). It runs as `python3 -I -S -E` in the sandbox root under a
 * CPython audit hook that refuses processes, writes, sockets and ctypes
 * (evaluateGuard.ts) and, where bubblewrap works, in a read-only,
 * network-less namespace as well. It is advertised read-only because one of
 * those guards, at least, is always enforced: a Python without audit hooks
 * fails the preamble and runs nothing.
 *
 * @module
 */
import { Duration, Effect, Schema } from "effect"
import * as Tool from "../../domain/Tool.js"
import { ToolResult } from "../../domain/ToolCall.js"
import { type Isolation, Sandbox } from "../../services/Sandbox.js"
import { ToolRegistry } from "../../services/ToolRegistry.js"
import { findExecutable } from "../sandbox/executable.js"
import { evaluateGuard } from "./evaluateGuard.js"
import { describeRun } from "./processReport.js"

/** Output kept per run. */
export const evaluateOutputCap = 32 * 1024
export const evaluateDefaultTimeoutSeconds = 10
export const evaluateMaxTimeoutSeconds = 60

/** Which guard holds evaluate, in the words its description uses. */
export const evaluateGuardLine = (isolation: Isolation): string =>
  isolation.mechanism === "bubblewrap"
    ? "Runs in a read-only bubblewrap sandbox with no network, under a Python audit hook."
    : "Guarded by a Python audit hook (no OS sandbox on this host)."

const description = (isolation: Isolation) => `Evaluate Python 3 code for computation and algorithm prototyping; print what you want to see.
${evaluateGuardLine(isolation)}
FORBIDDEN (refused with an error): writing files, subprocesses, network access, ctypes. Standard-library computation only.
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
  const python = findExecutable("python3")
  return Tool.make({
    name: "evaluate",
    annotations: { readOnly: true, openWorld: false },
    description: description(sandbox.isolation),
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
          args: ["-I", "-S", "-E", "-c", evaluateGuard, writeHint(names), code],
          env: { LANG: "C.UTF-8" },
          confine: "readOnly",
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
