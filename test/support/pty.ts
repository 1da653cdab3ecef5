/**
 * A program on a pseudo-terminal, driven like a person would: keys in,
 * screen text out. `script` (util-linux) provides the terminal, so nothing
 * native is needed; what is typed goes through the terminal's line
 * discipline (Ctrl+C becomes SIGINT for the program, Ctrl+D end of input).
 */
import { Duration, Effect, Schedule } from "effect"
import { spawn } from "node:child_process"
import { cliCommand } from "./process.js"

/** A running terminal session. */
export interface Terminal {
  /** Types `keys` (use "\r" for Enter, "\x03" for Ctrl+C, "\x04" for Ctrl+D). */
  readonly type: (keys: string) => Effect.Effect<void>
  /**
   * Waits until the screen text (everything printed so far, or from offset
   * `from` of it on) matches, failing after 30 s.
   */
  readonly waitFor: (pattern: RegExp | string, from?: number) => Effect.Effect<void, Error>
  /** Everything printed so far. */
  readonly screen: Effect.Effect<string>
  /** Waits for the program to end; its exit code. */
  readonly exited: Effect.Effect<number | null, Error>
}

/**
 * Runs this project's CLI with `args` on a terminal in the working directory
 * `cwd`, for the scope; `env` is laid over this process's environment (an
 * `undefined` value leaves the variable out).
 */
export const onTerminal = (
  args: ReadonlyArray<string>,
  cwd: string,
  env: Readonly<Record<string, string | undefined>> = {}
) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      // `exec`: script runs the command with `$SHELL -c`, and a shell that would stay around it
      // (dash does) would get the terminal's signals too; this way node is script's own child.
      const command = `exec ${
        [...cliCommand, ...args]
          .map((part) => `'${part.replaceAll("'", "'\\''")}'`)
          .join(" ")
      }`
      return spawn("script", ["-qfec", command, "/dev/null"], {
        cwd,
        env: { ...process.env, ...env },
        stdio: ["pipe", "pipe", "pipe"]
      })
    }),
    (child) => Effect.sync(() => child.exitCode === null && child.kill("SIGKILL"))
  ).pipe(Effect.map((child): Terminal => {
    let printed = ""
    child.stdout.on("data", (chunk: Buffer) => {
      printed += chunk.toString("utf8")
    })
    child.stderr.on("data", (chunk: Buffer) => {
      printed += chunk.toString("utf8")
    })
    const screen = Effect.sync(() => printed)
    return {
      type: (keys) =>
        Effect.async<void>((resume) => {
          child.stdin.write(keys, () => resume(Effect.void))
        }),
      waitFor: (pattern, from = 0) =>
        Effect.sync(() => printed.slice(from)).pipe(
          Effect.repeat({
            until: (text) => (typeof pattern === "string" ? text.includes(pattern) : pattern.test(text)),
            schedule: Schedule.spaced(Duration.millis(20))
          }),
          Effect.timeoutFail({
            duration: Duration.seconds(30),
            onTimeout: () =>
              new Error(`the screen never showed ${String(pattern)}; it shows:\n${printed.slice(Math.max(from, printed.length - 2000))}`)
          }),
          Effect.asVoid
        ),
      screen,
      exited: Effect.async<number | null, Error>((resume) => {
        if (child.exitCode !== null) return resume(Effect.succeed(child.exitCode))
        child.once("exit", (code) => resume(Effect.succeed(code)))
      }).pipe(
        Effect.timeoutFail({ duration: Duration.seconds(30), onTimeout: () => new Error("the program did not end") })
      )
    }
  }))
