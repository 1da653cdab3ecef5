import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import packageJson from "../../package.json" with { type: "json" }
import { runTs } from "../support/process.js"

const easyai = (...args: ReadonlyArray<string>) => runTs("src/programs/cli/main.ts", ...args)

describe("easyai", () => {
  it.live("prints its version", () =>
    Effect.gen(function*() {
      const { exitCode, stdout } = yield* easyai("--version")
      expect(exitCode).toBe(0)
      expect(stdout.trim()).toBe(packageJson.version)
    }))

  it.live("shows the system prompt a session starts with", () =>
    Effect.gen(function*() {
      const { exitCode, stdout } = yield* easyai("--show-system-prompt")
      expect(exitCode).toBe(0)
      expect(stdout.startsWith("You are Deep")).toBe(true)
      expect(stdout).toContain("# AUTHORITATIVE DATE/TIME")
      expect(stdout).toContain("- tool_lookup — ")
    }))

  it.live("names in the system prompt only the tools the session has, in the surface the model sees", () =>
    Effect.gen(function*() {
      const bare = yield* easyai("--show-system-prompt", "--no-tools")
      expect(bare.exitCode).toBe(0)
      expect(bare.stdout).toContain("You have no tools in this session.")
      expect(bare.stdout).toContain("that you are not certain: you have no tools to verify it.")
      expect(bare.stdout).not.toContain("Call a tool")
      expect(bare.stdout).not.toContain("action=")
      const split = yield* easyai("--show-system-prompt")
      expect(split.stdout).toContain("1. Call a tool (web_search/web_fetch, datetime, …) to verify, OR")
      const unified = yield* easyai("--show-system-prompt", "--tools-mode", "unified")
      expect(unified.stdout).toContain("1. Call a tool (web action=search/fetch, datetime, …) to verify, OR")
    }))

  it.live("replaces the base prompt with --system", () =>
    Effect.gen(function*() {
      const { exitCode, stdout } = yield* easyai("--show-system-prompt", "--system", "Be terse.")
      expect(exitCode).toBe(0)
      expect(stdout.startsWith("Be terse.\n\n# AUTHORITATIVE DATE/TIME")).toBe(true)
    }))

  it.live("rejects an unknown flag with a one-line message and exit code 2", () =>
    Effect.gen(function*() {
      const { exitCode, stderr, stdout } = yield* easyai("serve", "--model", "model.gguf", "--no-such-flag")
      expect(exitCode).toBe(2)
      expect(stdout).toBe("")
      expect(stderr).toBe("easyai serve: unknown flag --no-such-flag (see easyai serve --help)")
    }))

  it.live("rejects an unknown command line without a stack trace", () =>
    Effect.gen(function*() {
      const { exitCode, stderr } = yield* easyai("--no-such-flag")
      expect(exitCode).toBe(2)
      expect(stderr.split("\n")).toHaveLength(1)
      expect(stderr).not.toContain("{")
    }))
})
