/**
 * Where `easyai`'s log lines go, as a real process answering once against a
 * loopback server replaying scripted turns: the debug line of each model
 * turn's usage (`[prompt_eval] …`) in `--log-file` always and on stderr only
 * with `--verbose`; a failure as one stderr line, with its full cause under
 * `--verbose`; and the `[cli]` keys of `easyai.ini` for all of it, and for
 * `auto_approve`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { ScriptedChatModel } from "easyai/testing"
import { McpEndpoint, standalone } from "../../support/mcp.js"
import { runCli } from "../../support/process.js"
import { baseUrl, scriptedServer } from "../../support/server.js"
import { tempDir } from "../../support/tempDir.js"
import { echo } from "../../support/tools.js"

/** A turn that answers and reports its token usage. */
const answered = (text: string): ScriptedChatModel.Turn => [...ScriptedChatModel.reply(text), ScriptedChatModel.usage(812, 42)]

const usageLine = "[prompt_eval] 812 tok"

const read = (file: string): string => readFileSync(file, "utf8")

const nonEmptyLines = (text: string): ReadonlyArray<string> => text.split("\n").filter((line) => line.trim() !== "")

/** An unreachable server, tried once. */
const unreachable = ["-p", "hi", "--url", "http://127.0.0.1:1", "--http-retries", "0", "--no-tools"] as const

describe("the usage debug line", () => {
  it.live("goes to --log-file (appended) but not to stderr, and to stderr with --verbose or -v", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const cwd = tempDir()
      const logFile = path.join(cwd, "easyai.log")

      const quiet = yield* runCli({ cwd }, "-p", "hi", "--url", url, "--no-tools", "--log-file", logFile)
      expect(quiet.exitCode).toBe(0)
      expect(quiet.stdout).toBe("One.\n")
      expect(quiet.stderr).not.toContain("[prompt_eval]")
      expect(quiet.stderr).toBe("")
      const logged = read(logFile)
      expect(logged).toContain(usageLine)
      expect(nonEmptyLines(logged).find((line) => line.includes(usageLine))).toMatch(/level=DEBUG/)
      // Only the log file and the session file were written.
      expect(existsSync(path.join(cwd, ".easyai_session"))).toBe(true)

      const again = yield* runCli({ cwd }, "-p", "hi", "--url", url, "--no-tools", "--log-file", logFile)
      expect(again.stdout).toBe("Two.\n")
      expect(nonEmptyLines(read(logFile)).filter((line) => line.includes(usageLine))).toHaveLength(2)

      const verbose = yield* runCli({ cwd: tempDir() }, "-p", "hi", "--url", url, "--no-tools", "--verbose")
      expect(verbose.exitCode).toBe(0)
      expect(verbose.stdout).toBe("Three.\n")
      expect(verbose.stderr).toContain(usageLine)

      const short = yield* runCli({ cwd: tempDir() }, "-p", "hi", "--url", url, "--no-tools", "-v")
      expect(short.stdout).toBe("Four.\n")
      expect(short.stderr).toContain(usageLine)
    }).pipe(Effect.provide(scriptedServer([answered("One."), answered("Two."), answered("Three."), answered("Four.")]))), {
      timeout: 120_000
    })
})

describe("a failure", () => {
  it.live("is one stderr line without --verbose", () =>
    Effect.gen(function*() {
      const { exitCode, stderr, stdout } = yield* runCli({ cwd: tempDir() }, ...unreachable)
      expect(exitCode).toBe(1)
      expect(stdout).toBe("")
      expect(stderr.split("\n")).toHaveLength(1)
      expect(stderr).toMatch(/^easyai: .*ECONNREFUSED/)
    }), { timeout: 60_000 })

  it.live("with --verbose also logs its full cause, before the same one line", () =>
    Effect.gen(function*() {
      const quiet = yield* runCli({ cwd: tempDir() }, ...unreachable)
      const { exitCode, stderr, stdout } = yield* runCli({ cwd: tempDir() }, ...unreachable, "--verbose")
      expect(exitCode).toBe(1)
      expect(stdout).toBe("")
      const lines = stderr.split("\n")
      expect(lines.length).toBeGreaterThan(1)
      expect(lines.at(-1)).toBe(quiet.stderr)
      const cause = lines.slice(0, -1).join("\n")
      expect(cause).toContain("failed")
      expect(cause).toContain("ECONNREFUSED")
    }), { timeout: 60_000 })

  it.live("with --log-file only goes to the file in full, stderr keeping its one line", () =>
    Effect.gen(function*() {
      const cwd = tempDir()
      const logFile = path.join(cwd, "failure.log")
      const { exitCode, stderr } = yield* runCli({ cwd }, ...unreachable, "--log-file", logFile)
      expect(exitCode).toBe(1)
      expect(stderr.split("\n")).toHaveLength(1)
      expect(stderr).toMatch(/^easyai: /)
      const logged = read(logFile)
      expect(logged).toContain("failed")
      expect(logged).toContain("ECONNREFUSED")
    }), { timeout: 60_000 })
})

describe("easyai.ini's [cli] keys", () => {
  const withIni = (text: string) => {
    const cwd = tempDir()
    writeFileSync(path.join(cwd, "easyai.ini"), text)
    return cwd
  }

  it.live("log_file (relative to the file) and verbose are honoured", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const logged = withIni(`[cli]\nurl = ${url}\nlog_file = logs.txt\n`)
      const first = yield* runCli({ cwd: logged }, "-p", "hi", "--no-tools")
      expect(first.exitCode).toBe(0)
      expect(first.stdout).toBe("One.\n")
      expect(first.stderr).toBe("")
      expect(read(path.join(logged, "logs.txt"))).toContain(usageLine)

      const verbose = withIni(`[cli]\nurl = ${url}\nverbose = on\n`)
      const second = yield* runCli({ cwd: verbose }, "-p", "hi", "--no-tools")
      expect(second.stdout).toBe("Two.\n")
      expect(second.stderr).toContain(usageLine)
    }).pipe(Effect.provide(scriptedServer([answered("One."), answered("Two.")]))), { timeout: 120_000 })

  it.live("auto_approve lets an MCP server's tool run where no one is there to ask", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const mcp = yield* McpEndpoint
      const args = ["-p", "echo hello", "--url", url, "--no-tools", "--mcp", `${mcp.url}=srv`]

      // Without it, a one-shot run with no terminal denies the call.
      const denied = yield* runCli({ cwd: tempDir() }, ...args)
      expect(denied.exitCode).toBe(0)
      expect(denied.stdout).toBe("Denied.\n")
      expect(denied.stderr).toContain("✗ srv.echo: srv__echo was not run: no one is present to approve srv.echo, and it is not auto-approved")

      const approved = yield* runCli({ cwd: withIni("[cli]\nauto_approve = other, srv.*\n") }, ...args)
      expect(approved.exitCode).toBe(0)
      expect(approved.stdout).toBe("Echoed.\n")
      expect(approved.stderr).toContain("✓ srv.echo")
      expect(approved.stderr).not.toContain("✗")

      const requests = yield* (yield* ScriptedChatModel.ScriptedChatModel).requests
      expect(requests[3]?.messages.at(-1)?.content).toBe("hello")
    }).pipe(Effect.provide(Layer.merge(
      scriptedServer([
        ScriptedChatModel.toolCall("srv__echo", { text: "hello" }),
        ScriptedChatModel.reply("Denied."),
        ScriptedChatModel.toolCall("srv__echo", { text: "hello" }),
        ScriptedChatModel.reply("Echoed.")
      ]),
      standalone({}, { tools: [echo] })
    ))), { timeout: 120_000 })
})
