/**
 * `bash`: a shell for the model, in the sandbox root. Not a hardened
 * sandbox: the command runs with the agent's own privileges and sees the
 * file system as the agent does. It gets the sandbox's tool environment
 * (never easyai's keys), and no process it starts outlives the call.
 *
 * @module
 */
import { Duration, Effect, Schema } from "effect"
import * as Tool from "../../domain/Tool.js"
import { ToolResult } from "../../domain/ToolCall.js"
import { Sandbox } from "../../services/Sandbox.js"
import { describeRun } from "./processReport.js"

/** Output kept per command (stdout and stderr together). */
export const bashOutputCap = 32 * 1024
/** Default and longest timeout, in seconds. */
export const bashDefaultTimeoutSeconds = 30
export const bashMaxTimeoutSeconds = 300

const description = `Run a shell command with /bin/sh -c in the sandbox root and return its output.
NOT a hardened sandbox: the command runs with your user's privileges and can reach anything they can.

Parameters:
  command          Required. The shell command line, e.g. "ls -la && wc -l *.md".
  timeout_seconds  Optional. 1..${bashMaxTimeoutSeconds}, default ${bashDefaultTimeoutSeconds}. The whole process group is
                   stopped (SIGTERM, then SIGKILL after 2 s) when it runs out.

Output: stdout and stderr interleaved, at most ${bashOutputCap} bytes (the rest is dropped and a note says how much),
then a line with the exit code. Standard input is closed: interactive programs (vim, less, a password prompt)
will not work. Every process the command starts (background, nohup or setsid ones too) is stopped when it ends.
The environment holds PATH, HOME, the locale and a few more, not the agent's own variables.

Examples:
  {"command": "ls"}
  {"command": "grep -rn TODO src | head -20"}
  {"command": "make test", "timeout_seconds": 120}

Prefer the fs tools for reading and writing files: they are exact and cheaper.`

/** Builds `bash` on the sandbox. */
export const bash: Effect.Effect<Tool.Tool, never, Sandbox> = Effect.map(Sandbox, (sandbox) =>
  Tool.make({
    name: "bash",
    annotations: { readOnly: false, destructive: true, openWorld: true },
    description,
    shortDescription: "Run a shell command in the sandbox root (NOT a hardened sandbox: runs with your user privileges).",
    parameters: Schema.Struct({
      command: Schema.String.pipe(Schema.minLength(1)).annotations({
        description: "Required. The shell command line."
      }),
      timeout_seconds: Schema.optional(
        Schema.Int.pipe(Schema.between(1, bashMaxTimeoutSeconds)).annotations({
          description: `Optional. 1..${bashMaxTimeoutSeconds}, default ${bashDefaultTimeoutSeconds}.`
        })
      )
    }),
    examples: [{ command: "ls -la" }],
    handler: ({ command, timeout_seconds }) => {
      const seconds = timeout_seconds ?? bashDefaultTimeoutSeconds
      return Effect.flatMap(sandbox.toolEnv, (env) =>
        sandbox.run({
          command: "/bin/sh",
          args: ["-c", command],
          env,
          timeout: Duration.seconds(seconds),
          killGrace: Duration.seconds(2),
          maxOutputBytes: bashOutputCap,
          stderr: "merge"
        })
      ).pipe(
        Effect.map((result) => {
          const report = describeRun(result, { timeoutMillis: seconds * 1000 })
          return result.exitCode === 0 && !result.timedOut ? ToolResult.ok(report) : ToolResult.error(report)
        })
      )
    }
  }))
