/**
 * The hybrid shell's side effects: `cd`, `export` and `unset` change this
 * process (so they last from one line to the next and the model's tools see
 * them too), and any other command runs in the user's `$SHELL` in the
 * foreground, where Ctrl+C reaches it rather than easyai.
 *
 * @module
 */
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { statSync } from "node:fs"
import { constants } from "node:os"
import type { Interface } from "node:readline"
import { cdTarget, type ShellLine, tildePath } from "./shellLine.js"
import { errorText } from "../../domain/errorText.js"

/** The working directory; `$PWD` once it was deleted from under the shell (where `process.cwd()` throws). */
const workingDirectory = (): string => {
  try {
    return process.cwd()
  } catch {
    return process.env["PWD"] ?? "?"
  }
}

/** The prompt: the working directory with `~` for home, then `$`. */
export const shellPrompt = (): string => `${tildePath(workingDirectory(), process.env["HOME"])} $ `

/** Applies `cd`, `export` or `unset`; returns what to tell the user (empty for nothing). */
export const applyBuiltin = (line: Extract<ShellLine, { _tag: "Cd" | "Export" | "Unset" }>): Effect.Effect<string> =>
  Effect.sync(() => {
    switch (line._tag) {
      case "Cd": {
        const from = workingDirectory()
        const target = cdTarget(line.target, { cwd: from, home: process.env["HOME"], previous: process.env["OLDPWD"] })
        if (target._tag === "Invalid") return target.message
        try {
          const kind = statSync(target.path, { throwIfNoEntry: false })
          if (kind === undefined) return `cd: no such directory: ${line.target ?? "~"}`
          if (!kind.isDirectory()) return `cd: not a directory: ${line.target ?? "~"}`
          process.chdir(target.path)
        } catch (error) {
          // A directory it may not enter, or one that vanished meanwhile: said, and the shell stays where it was.
          return `cd: ${errorText(error)}`
        }
        process.env["OLDPWD"] = from
        process.env["PWD"] = target.path
        // As bash does, `cd -` says where it went.
        return line.target === "-" ? target.path : ""
      }
      case "Export":
        for (const [name, value] of line.assignments) process.env[name] = value
        return ""
      case "Unset":
        for (const name of line.names) delete process.env[name]
        return ""
    }
  })

/** The signals a terminal sends its foreground process group from the keyboard. */
const terminalSignals = ["SIGINT", "SIGQUIT", "SIGTSTP"] as const

/**
 * Runs `command` with `$SHELL -c` (`/bin/sh` when unset) in the working
 * directory and environment of this process, on the terminal, and returns
 * its exit status (128 + the signal's number when a signal ended it).
 *
 * The child is in easyai's process group, which the terminal has in the
 * foreground, so the terminal's Ctrl+C (SIGINT) reaches it from the kernel.
 * Meanwhile the line editor is paused with the terminal out of raw mode
 * (for the command to read it cooked, with ^C a signal rather than a key),
 * and easyai's own listeners for the keyboard's signals (Ctrl+C, Ctrl+\,
 * Ctrl+Z) are set aside so those signals do not also stop easyai.
 */
export const runInForeground = (command: string, editor: Interface): Effect.Effect<number> =>
  Effect.map(foreground(command, editor, undefined), (ran) => ran.status)

/** What a command run in the foreground left: its exit status and, when captured, what it printed. */
export interface Ran {
  readonly status: number
  /** stdout and stderr as printed, up to the capture's cap; "" when not captured. */
  readonly output: string
  /** The command printed more than the cap. */
  readonly truncated: boolean
}

/**
 * As {@link runInForeground}, and also keeps what the command prints (up to
 * `captureBytes`), while it is shown on the terminal as it comes.
 */
export const runCapturing = (command: string, editor: Interface, captureBytes: number): Effect.Effect<Ran> =>
  foreground(command, editor, captureBytes)

const foreground = (command: string, editor: Interface, captureBytes: number | undefined): Effect.Effect<Ran> =>
  Effect.async<Ran>((resume) => {
    const wasRaw = process.stdin.isTTY === true && process.stdin.isRaw
    const ignore = () => undefined
    // The terminal's Ctrl+C, Ctrl+\ and Ctrl+Z go to the whole process group: only the command may act on them.
    const saved = terminalSignals.map((signal) => [signal, process.rawListeners(signal)] as const)
    editor.pause()
    if (wasRaw) process.stdin.setRawMode(false)
    for (const [signal, listeners] of saved) {
      // Ignoring first, then removing: a signal never finds the process without a listener (which would kill it).
      process.on(signal, ignore)
      for (const listener of listeners) process.removeListener(signal, listener as NodeJS.SignalsListener)
    }
    let restored = false
    const restore = () => {
      if (restored) return
      restored = true
      for (const [signal, listeners] of saved) {
        // rawListeners is typed Function[]; these are the listeners it returned (once-wrappers kept as such).
        for (const listener of listeners) process.on(signal, listener as NodeJS.SignalsListener)
        process.removeListener(signal, ignore)
      }
      if (wasRaw) process.stdin.setRawMode(true)
      editor.resume()
    }
    const child = spawn(process.env["SHELL"] || "/bin/sh", ["-c", command], {
      stdio: captureBytes === undefined ? "inherit" : ["inherit", "pipe", "pipe"],
      env: process.env
    })
    // What the command printed, kept up to the cap; owned by this one run.
    const kept: Array<Buffer> = []
    let size = 0
    let truncated = false
    const tee = (to: NodeJS.WriteStream) => (chunk: Buffer) => {
      to.write(chunk)
      if (captureBytes === undefined) return
      const room = captureBytes - size
      if (chunk.length > room) truncated = true
      if (room > 0) kept.push(chunk.subarray(0, room))
      size += Math.min(room, chunk.length)
    }
    child.stdout?.on("data", tee(process.stdout))
    child.stderr?.on("data", tee(process.stderr))
    const ran = (status: number): Ran => ({ status, output: Buffer.concat(kept).toString("utf8"), truncated })
    child.once("error", (error) => {
      restore()
      process.stderr.write(`easyai: ${error.message}\n`)
      resume(Effect.succeed(ran(127)))
    })
    child.once("close", (code, signal) => {
      restore()
      resume(Effect.succeed(ran(code ?? 128 + (signal === null ? 0 : constants.signals[signal]))))
    })
    return Effect.sync(() => {
      child.kill("SIGTERM")
      restore()
    })
  })
