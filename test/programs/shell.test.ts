/**
 * The hybrid shell (`easyai --shell`) on a real pseudo-terminal, against a
 * loopback server replaying scripted turns: builtins that last, commands in
 * `$SHELL`, `> text` for the model, and Ctrl+C that stops a command but not
 * easyai.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ScriptedChatModel } from "easyai/testing"
import { existsSync } from "node:fs"
import * as path from "node:path"
import { runCli } from "../support/process.js"
import { onTerminal, type Terminal } from "../support/pty.js"
import { baseUrl, scriptedServer, withoutClock } from "../support/server.js"
import { tempDir } from "../support/tempDir.js"

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** What a command printed as a whole line of its own (not the echo of what was typed). */
const printedLine = (text: string) => `\\n${escape(text)}\\r?\\n`

/** A command that sleeps 10 minutes, printing "sleeping" (not in its own text) once it runs. */
const sleeper = `"${process.execPath}" -e "console.log('sleep' + 'ing'); setTimeout(() => {}, 600_000)"`

/**
 * Types `text` and Enter, then waits, in what the screen shows from then on,
 * for `shown` (a regular expression's source; the echo of `text` when
 * omitted) and, after it, `prompt`: the line was handled and the next one
 * can be typed (a line typed earlier would wait, typed ahead, for its turn).
 */
const enter = (terminal: Terminal, text: string, prompt: string, shown = escape(text)) =>
  Effect.gen(function*() {
    const from = (yield* terminal.screen).length
    yield* terminal.type(`${text}\r`)
    yield* terminal.waitFor(new RegExp(`${shown}[\\s\\S]*${escape(prompt)}`), from)
  })

describe("the hybrid shell on a terminal", () => {
  it.scopedLive("keeps cd and the environment, runs commands in $SHELL, asks the model with >, survives Ctrl+C", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const home = tempDir()
      const terminal = yield* onTerminal(["--url", url, "--shell"], home, {
        HOME: home,
        SHELL: "/bin/sh",
        OLDPWD: undefined,
        GREETING: undefined
      })
      // The prompt is the working directory, with ~ for $HOME.
      yield* terminal.waitFor("~ $ ")

      // cd lasts from one line to the next; cd - goes back and says where.
      yield* enter(terminal, "mkdir sub", "~ $ ")
      yield* enter(terminal, "cd sub", "~/sub $ ")
      yield* enter(terminal, "pwd", "~/sub $ ", printedLine(path.join(home, "sub")))
      yield* enter(terminal, "cd -", "~ $ ", printedLine(home))

      // export and unset last too, and commands see them.
      yield* enter(terminal, "export GREETING=\"hello there\"", "~ $ ")
      yield* enter(terminal, "echo $GREETING", "~ $ ", printedLine("hello there"))
      yield* enter(terminal, "unset GREETING", "~ $ ")
      yield* enter(terminal, "echo \"[$GREETING]\"", "~ $ ", printedLine("[]"))

      // $VAR and ~ expand in an export's value, as in bash.
      yield* enter(terminal, "export TOOLS=$HOME:~/bin", "~ $ ")
      yield* enter(terminal, "echo $TOOLS", "~ $ ", printedLine(`${home}:${home}/bin`))

      // A failing command does not end the shell.
      yield* enter(terminal, "false", "~ $ ")

      // > goes to the model; the conversation is saved where easyai started, whatever the cd since.
      yield* enter(terminal, "cd sub", "~/sub $ ")
      yield* enter(terminal, "> hi", "~/sub $ ", "Hello from the shell model\\.")
      expect(existsSync(path.join(home, ".easyai_session"))).toBe(true)
      expect(existsSync(path.join(home, "sub", ".easyai_session"))).toBe(false)
      yield* enter(terminal, "cd", "~ $ ")
      const requests = yield* Effect.flatMap(ScriptedChatModel.ScriptedChatModel, (recorder) => recorder.requests)
      expect(requests).toHaveLength(1)
      const asked = requests[0]?.messages.at(-1)
      expect(asked?._tag === "UserMessage" ? withoutClock(asked.content).trim() : asked?._tag).toBe("hi")

      // Ctrl+C stops the running command, not easyai: the prompt comes back and the shell still works.
      // The command says "sleeping" itself once it runs: after `echo sleeping && sleep 30` the ^C could come
      // while sh has forked but not yet started sleep, and that child (still sh, catching SIGINT) would lose it.
      const running = (yield* terminal.screen).length
      yield* terminal.type(`${sleeper}\r`)
      yield* terminal.waitFor(new RegExp(printedLine("sleeping")), running)
      const stopped = (yield* terminal.screen).length
      yield* terminal.type("\x03")
      yield* terminal.waitFor("~ $ ", stopped)
      yield* enter(terminal, "echo alive", "~ $ ", printedLine("alive"))

      yield* terminal.type("/exit\r")
      expect(yield* terminal.exited).toBe(0)
      // The one model turn was the only request: no shell line reached the model.
      expect(yield* Effect.flatMap(ScriptedChatModel.ScriptedChatModel, (recorder) => recorder.requests)).toHaveLength(1)
    }).pipe(Effect.provide(scriptedServer([ScriptedChatModel.reply("Hello from the shell model.")]))), { timeout: 120_000 })

  it.live("--shell with -p is refused in one line", () =>
    Effect.gen(function*() {
      const { exitCode, stderr } = yield* runCli({ cwd: tempDir() }, "--shell", "-p", "hi")
      expect(exitCode).toBe(1)
      expect(stderr).toBe("easyai: --shell is interactive: it needs a terminal and no -p")
    }), { timeout: 60_000 })
})
