import { describe, expect, it } from "@effect/vitest"
import { Command } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { Effect, Stream } from "effect"
import { existsSync } from "node:fs"
import * as path from "node:path"
import packageJson from "../../../package.json" with { type: "json" }
import { projectRoot } from "../../support/process.js"

// What `npm install` builds and `npx easyai` runs: the bundled command, not the sources.
const bin = path.join(projectRoot, packageJson.bin.easyai)

const run = (...args: ReadonlyArray<string>) =>
  Effect.scoped(Effect.gen(function*() {
    if (!existsSync(bin)) return yield* Effect.dieMessage(`${bin} is missing: npm run build makes it`)
    const child = yield* Command.make(process.execPath, bin, ...args).pipe(Command.workingDirectory(projectRoot), Command.start)
    const [stdout, exitCode] = yield* Effect.all([
      child.stdout.pipe(Stream.decodeText(), Stream.mkString),
      child.exitCode,
      child.stderr.pipe(Stream.runDrain)
    ], { concurrency: 3 })
    return { stdout, exitCode: Number(exitCode) }
  })).pipe(Effect.provide(NodeContext.layer))

describe("the installed easyai command", () => {
  it.live("is the bundle in dist/cli", () =>
    Effect.sync(() => {
      expect(packageJson.bin.easyai).toBe("./dist/cli/easyai.js")
    }))

  it.live("prints its version and every command's help", () =>
    Effect.gen(function*() {
      expect((yield* run("--version")).stdout.trim()).toBe(packageJson.version)
      for (const command of ["chat", "serve", "mcp", "models", "tools", "health", "props", "metrics", "preset"]) {
        const { exitCode, stdout } = yield* run(command, "--help")
        expect(exitCode, command).toBe(0)
        expect(stdout, command).toContain(`Usage: easyai ${command} [FLAGS]`)
      }
    }), 60_000)

  it.live("writes a bash completion script that completes commands and a subcommand's flags", () =>
    Effect.gen(function*() {
      const { exitCode, stdout } = yield* run("--completions", "bash")
      expect(exitCode).toBe(0)
      // Bash calls the function with the command, the word being completed and the word before it.
      const complete = (words: ReadonlyArray<string>) =>
        Command.make(
          "bash",
          "-c",
          `${stdout}\nCOMP_WORDS=(${words.join(" ")}); COMP_CWORD=${words.length - 1}; _easyai_bash_completions easyai ${words.at(-1)} ${words.at(-2)}; echo "\${COMPREPLY[@]}"`
        ).pipe(Command.string, Effect.map((text) => text.trim().split(/\s+/)), Effect.provide(NodeContext.layer))
      expect(yield* complete(["easyai", "se"])).toEqual(["serve"])
      expect(yield* complete(["easyai", "serve", "--pa"])).toEqual(["--parallel"])
      expect(yield* complete(["easyai", "--shel"])).toEqual(["--shell"])
    }), 30_000)

  it.live("loads a command's body from its chunk and runs it", () =>
    Effect.gen(function*() {
      const { exitCode, stdout } = yield* run("tools")
      expect(exitCode).toBe(0)
      expect(stdout).toContain("datetime")
    }), 30_000)
})
