import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { runTs } from "./support/process.js"

describe("examples", () => {
  it.live("hello.ts answers in three lines", () =>
    Effect.gen(function*() {
      const { exitCode, stdout } = yield* runTs("examples/hello.ts")
      expect(exitCode).toBe(0)
      expect(stdout).toBe("2 + 2 = 4.\n")
    }))

  it.live("custom-tool.ts runs a ten-line tool through the agent loop", () =>
    Effect.gen(function*() {
      const { exitCode, stdout } = yield* runTs("examples/custom-tool.ts")
      expect(exitCode).toBe(0)
      expect(stdout).toBe("[roll_dice] rolled 20 on a 20-sided die\nYou rolled a 20.\n")
    }))
})
