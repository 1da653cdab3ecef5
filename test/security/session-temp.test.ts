/**
 * The chat writes `.easyai_session` through a temporary file renamed over
 * it; a writer killed in between (a crash, SIGKILL) used to leave that
 * temporary file forever. These tests leave such files as a killed writer
 * would (named after a process that has exited) beside ones a live writer
 * could still be filling, run the real CLI once, and check that exactly the
 * orphans are gone and the session file is whole.
 */
import { Command } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { ScriptedChatModel } from "easyai/testing"
import { temporaryName } from "../../src/layers/session/sessionTemp.js"
import { runCli } from "../support/process.js"
import { alive } from "../support/processes.js"
import { baseUrl, scriptedServer } from "../support/server.js"
import { tempDir } from "../support/tempDir.js"

/** The pid of a real process that has run and exited: what a killed writer's pid is. */
const deadPid = Effect.scoped(Effect.gen(function*() {
  const child = yield* Command.start(Command.make(process.execPath, "-e", ""))
  yield* child.exitCode
  return child.pid
})).pipe(Effect.provide(NodeContext.layer))

const torn = "{\"version\":1,\"history\":[{\"_tag\":\"UserMess"

/** The files a chat directory holds, each a temporary file left in one way or another. */
const leftBehind = (cwd: string, dead: number) => {
  const orphans = [temporaryName(dead), temporaryName(dead)]
  const kept = [
    // A writer that still runs (this test process) may still be filling its file.
    temporaryName(process.pid),
    // A writer of another pid space (another container or host sharing the directory): its pid means nothing here.
    temporaryName(dead, "0123456789ab"),
    // The old name carries no writer, so nothing proves its writer gone.
    `.easyai_session.${randomUUID()}.tmp`,
    "notes.tmp"
  ]
  for (const name of [...orphans, ...kept]) writeFileSync(path.join(cwd, name), torn)
  return { orphans, kept }
}

const listing = (cwd: string) => readdirSync(cwd).sort()

const history = (cwd: string): ReadonlyArray<string> =>
  (JSON.parse(readFileSync(path.join(cwd, ".easyai_session"), "utf8")) as { history: ReadonlyArray<{ _tag: string }> }).history
    .map((message) => message._tag)

describe("the session file's temporary files", () => {
  it.live("left by a killed writer are removed when the chat next saves, and only those", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const dead = yield* deadPid
      expect(alive(dead)).toBe(false)
      const cwd = tempDir()
      const { kept } = leftBehind(cwd, dead)
      const { exitCode, stdout } = yield* runCli({ cwd }, "-p", "hi", "--url", url, "--no-tools")
      expect(exitCode).toBe(0)
      expect(stdout).toBe("Hello.\n")
      expect(listing(cwd)).toEqual([".easyai_session", ...kept].sort())
      expect(history(cwd)).toEqual(["UserMessage", "AssistantMessage"])
    }).pipe(Effect.provide(scriptedServer([ScriptedChatModel.reply("Hello.")]))), { timeout: 120_000 })

  it.live("left by a killed writer are removed when --continue loads the conversation, even with nothing saved", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const cwd = tempDir()
      const first = yield* runCli({ cwd }, "-p", "My name is Ada.", "--url", url, "--no-tools")
      expect(first.exitCode).toBe(0)
      const before = readFileSync(path.join(cwd, ".easyai_session"), "utf8")
      const { kept } = leftBehind(cwd, yield* deadPid)
      const second = yield* runCli({ cwd }, "--continue", "--no-local-session", "-p", "And mine?", "--url", url, "--no-tools")
      expect(second.exitCode).toBe(0)
      expect(listing(cwd)).toEqual([".easyai_session", ...kept].sort())
      // Nothing was saved, and the file is the whole conversation of the first run.
      expect(readFileSync(path.join(cwd, ".easyai_session"), "utf8")).toBe(before)
      expect(history(cwd)).toEqual(["UserMessage", "AssistantMessage"])
    }).pipe(Effect.provide(scriptedServer([ScriptedChatModel.reply("Nice to meet you."), ScriptedChatModel.reply("Ada.")]))), {
      timeout: 120_000
    })
})
