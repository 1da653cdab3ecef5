/**
 * `easyai` (the chat) answering once, as a real process: against a loopback
 * server replaying scripted turns, and on the real engine.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { ScriptedChatModel } from "easyai/testing"
import { engineConfig, testModels } from "../support/models.js"
import { runCli } from "../support/process.js"
import { baseUrl, scriptedServer, withoutClock } from "../support/server.js"
import { tempDir } from "../support/tempDir.js"

/** The CLI in a fresh working directory (where it keeps its session file). */
const easyai = (...args: ReadonlyArray<string>) => runCli({ cwd: tempDir() }, ...args)

describe("easyai -p (one answer)", () => {
  it.live("prints the answer on stdout and nothing else, exit 0", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const { exitCode, stderr, stdout } = yield* easyai("-p", "hi", "--url", url, "--no-tools")
      expect(exitCode).toBe(0)
      expect(stdout).toBe("Hello from the server.\n")
      expect(stderr).toBe("")
    }).pipe(Effect.provide(scriptedServer([ScriptedChatModel.reply("Hello from the server.")]))), { timeout: 60_000 })

  it.live("takes the prompt from stdin when there is no -p", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const { exitCode, stdout } = yield* runCli({ cwd: tempDir(), input: "What is on stdin?\n" }, "--url", url, "--no-tools")
      expect(exitCode).toBe(0)
      expect(stdout).toBe("Read it.\n")
      const requests = yield* (yield* ScriptedChatModel.ScriptedChatModel).requests
      const asked = requests[0]?.messages.at(-1)
      expect(asked?._tag === "UserMessage" ? withoutClock(asked.content).trim() : "").toBe("What is on stdin?")
    }).pipe(Effect.provide(scriptedServer([ScriptedChatModel.reply("Read it.")]))), { timeout: 60_000 })

  it.live("against easyai serve, the model reads one preamble and one time: the chat's, on the newest user message", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const { exitCode } = yield* easyai("-p", "what day is it?", "--url", url, "--no-tools")
      expect(exitCode).toBe(0)
      const [request] = yield* (yield* ScriptedChatModel.ScriptedChatModel).requests
      const [system, asked] = request?.messages ?? []
      expect(system?._tag).toBe("SystemMessage")
      expect(system?.content.split("# AUTHORITATIVE DATE/TIME")).toHaveLength(2)
      expect(system?.content).not.toMatch(/Sent: \d/)
      expect(asked?.content).toMatch(/^what day is it\?\n\nSent: \d{4}-\d{2}-\d{2} [^\n]+$/)
    }).pipe(Effect.provide(scriptedServer([ScriptedChatModel.reply("Monday.")]))), { timeout: 60_000 })

  it.live("refuses an empty prompt on stdin", () =>
    Effect.gen(function*() {
      const { exitCode, stderr } = yield* runCli({ cwd: tempDir(), input: "" }, "--url", "http://127.0.0.1:1", "--no-tools")
      expect(exitCode).toBe(1)
      expect(stderr).toBe("easyai: the prompt is empty")
    }), { timeout: 60_000 })

  it.live("shows reasoning dimmed on stderr, or hides it with --no-reasoning", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const shown = yield* easyai("-p", "hi", "--url", url, "--no-tools")
      expect(shown.stdout).toBe("Forty-two.\n")
      expect(shown.stderr).toContain("Let me think.")
      const hidden = yield* easyai("-p", "hi", "--url", url, "--no-tools", "--no-reasoning")
      expect(hidden.stdout).toBe("Forty-two.\n")
      expect(hidden.stderr).not.toContain("Let me think.")
    }).pipe(Effect.provide(scriptedServer([
      [...ScriptedChatModel.reasoning("Let me think."), ...ScriptedChatModel.text("Forty-two.")],
      [...ScriptedChatModel.reasoning("Let me think."), ...ScriptedChatModel.text("Forty-two.")]
    ]))), { timeout: 60_000 })

  it.live("removes <think> blocks from the answer with --no-reasoning", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const { stdout } = yield* easyai("-p", "hi", "--url", url, "--no-tools", "--no-reasoning")
      expect(stdout).toBe("Visible.\n")
    }).pipe(Effect.provide(scriptedServer([ScriptedChatModel.text("<thi", "nk>hidden</th", "ink>Visible.")]))), { timeout: 60_000 })

  it.live("runs a local tool the model asks for and shows it on stderr", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const { exitCode, stderr, stdout } = yield* easyai("-p", "what time is it?", "--url", url, "--tools", "datetime")
      expect(exitCode).toBe(0)
      expect(stderr).toContain("✓ datetime")
      expect(stdout).toBe("It is now.\n")
      const requests = yield* (yield* ScriptedChatModel.ScriptedChatModel).requests
      const result = requests[1]?.messages.at(-1)
      expect(result?._tag === "ToolMessage" ? result.content : "").toContain("UTC:")
    }).pipe(Effect.provide(scriptedServer([ScriptedChatModel.toolCall("datetime", {}), ScriptedChatModel.reply("It is now.")]))), {
      timeout: 60_000
    })
})

describe("easyai.ini", () => {
  const iniFile = (text: string) => {
    const file = path.join(tempDir(), "easyai.ini")
    writeFileSync(file, text)
    return file
  }

  it.live("fills what the flags leave out, and the flags win over it", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const file = iniFile(`[cli]\nurl = ${url}\n\n[ENGINE]\ntemperature = 0.55\ntop_k = 7\n`)
      const fromFile = yield* easyai("-p", "hi", "--config", file, "--no-tools")
      expect(fromFile.exitCode).toBe(0)
      expect(fromFile.stdout).toBe("first\n")
      const overridden = yield* easyai("-p", "hi", "--config", file, "--no-tools", "--temperature", "0.3")
      expect(overridden.stdout).toBe("second\n")
      const requests = yield* (yield* ScriptedChatModel.ScriptedChatModel).requests
      expect(requests[0]?.sampling).toMatchObject({ temperature: 0.55, topK: 7 })
      expect(requests[1]?.sampling).toMatchObject({ temperature: 0.3, topK: 7 })
    }).pipe(Effect.provide(scriptedServer([ScriptedChatModel.reply("first"), ScriptedChatModel.reply("second")]))), { timeout: 60_000 })

  it.live("a bad value is one line naming the file, the line and the key", () =>
    Effect.gen(function*() {
      const file = iniFile("[ENGINE]\ntemperature = hot\n")
      const { exitCode, stderr, stdout } = yield* easyai("-p", "hi", "--config", file)
      expect(exitCode).toBe(2)
      expect(stdout).toBe("")
      expect(stderr).toBe(`easyai: ${file}:2: [ENGINE] temperature: expected a number from 0 to 5, got "hot"`)
    }), { timeout: 60_000 })
})

describe("the session file", () => {
  it.live("is saved after a turn, and --continue carries the conversation on", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const cwd = tempDir()
      const first = yield* runCli({ cwd }, "-p", "My name is Ada.", "--url", url, "--no-tools")
      expect(first.exitCode).toBe(0)
      const saved = JSON.parse(readFileSync(path.join(cwd, ".easyai_session"), "utf8"))
      expect(saved.version).toBe(1)
      expect(saved.history.map((message: { readonly _tag: string }) => message._tag)).toEqual(["UserMessage", "AssistantMessage"])
      const second = yield* runCli({ cwd }, "--continue", "-p", "What is my name?", "--url", url, "--no-tools")
      expect(second.stdout).toBe("Your name is Ada.\n")
      const requests = yield* (yield* ScriptedChatModel.ScriptedChatModel).requests
      const seen = requests[1]?.messages.map((message) => message._tag === "SystemMessage" ? "system" : `${message._tag}:${withoutClock(message.content)}`)
      expect(requests[1]?.messages.at(-1)?.content).toMatch(/\n\nSent: \d{4}-/)
      expect(seen?.slice(1)).toEqual([
        "UserMessage:My name is Ada.",
        "AssistantMessage:Nice to meet you.",
        "UserMessage:What is my name?"
      ])
      // Without --no-local-session the file now holds both turns; with it, nothing is written.
      expect(JSON.parse(readFileSync(path.join(cwd, ".easyai_session"), "utf8")).history).toHaveLength(4)
      const elsewhere = tempDir()
      yield* runCli({ cwd: elsewhere }, "-p", "hi", "--url", url, "--no-tools", "--no-local-session")
      expect(existsSync(path.join(elsewhere, ".easyai_session"))).toBe(false)
    }).pipe(Effect.provide(scriptedServer([
      ScriptedChatModel.reply("Nice to meet you."),
      ScriptedChatModel.reply("Your name is Ada."),
      ScriptedChatModel.reply("Hello.")
    ]))), { timeout: 60_000 })

  it.live("a file that is not a saved conversation is refused in one line", () =>
    Effect.gen(function*() {
      const cwd = tempDir()
      writeFileSync(path.join(cwd, ".easyai_session"), "{not json")
      const { exitCode, stderr } = yield* runCli({ cwd }, "--continue", "-p", "hi", "--url", "http://127.0.0.1:1", "--no-tools")
      expect(exitCode).toBe(1)
      expect(stderr).toBe(`easyai: ${path.join(cwd, ".easyai_session")} is not a saved easyai conversation; move it away to start afresh`)
    }), { timeout: 60_000 })
})

describe("easyai -p on the real engine", () => {
  const model = testModels[0]
  if (model === undefined) throw new Error("no test model")
  it.live(`answers with ${model.name}`, () =>
    Effect.gen(function*() {
      const { exitCode, stderr } = yield* easyai(
        "-p",
        "Once upon a time",
        "-m",
        engineConfig(model).modelPath,
        "-t",
        "1",
        "--ctx",
        "2048",
        "--no-tools",
        "--no-builtin-system",
        "--max-tokens",
        "8"
      )
      expect(stderr).toBe("")
      expect(exitCode).toBe(0)
    }), { timeout: 120_000 })
})

describe("easyai refuses bad input in one line, with a failing exit code", () => {
  const refused = (args: ReadonlyArray<string>, message: string | RegExp, code = 1) =>
    Effect.gen(function*() {
      const { exitCode, stderr, stdout } = yield* easyai(...args)
      expect(exitCode).toBe(code)
      expect(stdout).toBe("")
      expect(stderr.split("\n")).toHaveLength(1)
      expect(stderr).toMatch(message)
    })

  it.live("a missing model file", () => refused(["-p", "hi", "-m", "/no/such/model.gguf"], "easyai: cannot load /no/such/model.gguf: no such file"), {
    timeout: 60_000
  })
  it.live("a prompt the context cannot hold, saying how to get out of it", () => {
    const model = testModels[0]
    if (model === undefined) throw new Error("no test model")
    return refused(
      ["-p", "Once upon a time there was a long story. ".repeat(100), "-m", engineConfig(model).modelPath, "-t", "1", "--ctx", "256", "--no-tools"],
      /^easyai: the prompt needs \d+ tokens but the context holds 256: \/compress the conversation, start with a larger --ctx, or leave the tools out with --no-tools$/
    )
  }, { timeout: 120_000 })
  it.live("an unreachable server", () =>
    refused(["-p", "hi", "--url", "http://127.0.0.1:1", "--http-retries", "0", "--no-tools"], /^easyai: .*ECONNREFUSED/), { timeout: 60_000 })
  it.live("no model at all", () => refused(["-p", "hi"], "easyai: no model: pass --model FILE for a local model or --url URL for a server"), {
    timeout: 60_000
  })
  it.live("an unknown flag, with the usage exit code", () =>
    refused(["chat", "--no-such-flag"], "easyai chat: unknown flag --no-such-flag (see easyai chat --help)", 2), { timeout: 60_000 })
})
