/**
 * `easyai -p` and Ctrl+C: the first SIGINT stops the answer gracefully, a
 * second one exits at once, even while the graceful stop still waits.
 */
import { Command } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Clock, Duration, Effect, Stream } from "effect"
import { existsSync, readFileSync } from "node:fs"
import * as path from "node:path"
import { ScriptedChatModel } from "easyai/testing"
import { cliCommand } from "../support/process.js"
import { processIds } from "../../src/layers/sandbox/procfs.js"
import { baseUrl, scriptedServer } from "../support/server.js"
import { tempDir } from "../support/tempDir.js"

/** The sleep the tool runs, unique to this test so its process can be found. */
const sleeper = "sleep 37.25"

/** Whether a process running {@link sleeper} is still there. */
const sleeperRuns = (): boolean =>
  processIds().some((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim() === sleeper
    } catch {
      return false
    }
  })

/** Polls, at most 30 s, until `check` holds. */
const until = (check: () => boolean) =>
  Effect.gen(function*() {
    for (let attempt = 0; attempt < 600; attempt++) {
      if (check()) return true
      yield* Effect.sleep(Duration.millis(50))
    }
    return false
  })

describe("easyai -p and Ctrl+C", () => {
  it.live("a second SIGINT exits at once while the first one's stop still waits on a tool that ignores SIGTERM", () =>
    Effect.scoped(Effect.gen(function*() {
      const url = yield* baseUrl
      const sandbox = tempDir()
      const command = Command.make(
        ...cliCommand,
        "-p", "run it", "--url", url, "--no-tools", "--sandbox", sandbox, "--allow-bash", "--isolate", "auto", "--yes"
      ).pipe(Command.workingDirectory(sandbox))
      const child = yield* Command.start(command).pipe(Effect.provide(NodeContext.layer))
      yield* Stream.runDrain(child.stderr).pipe(Effect.forkScoped)
      // The tool outlives SIGTERM: a graceful stop waits out the kill grace for it.
      expect(yield* until(() => existsSync(path.join(sandbox, "started")) && sleeperRuns())).toBe(true)
      yield* Effect.sync(() => process.kill(child.pid, "SIGINT"))
      yield* Effect.sleep(Duration.millis(100))
      const second = yield* Clock.currentTimeMillis
      yield* Effect.sync(() => process.kill(child.pid, "SIGINT"))
      const exitCode = yield* child.exitCode
      const took = (yield* Clock.currentTimeMillis) - second
      expect(Number(exitCode)).toBe(130)
      // The bash tool's kill grace is 2 s: far less means the second SIGINT did not wait for it.
      expect(took).toBeLessThan(1500)
      // The tool ran in a namespace that dies with its parent: nothing is left behind.
      expect(yield* until(() => !sleeperRuns())).toBe(true)
    }).pipe(Effect.provide(scriptedServer([
      ScriptedChatModel.toolCall("bash", { command: `trap '' TERM; touch started; ${sleeper}; echo done` }),
      ScriptedChatModel.reply("finished")
    ])))), { timeout: 60_000 })
})
