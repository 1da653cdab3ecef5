/**
 * The check of the command line against the command it names, on the real
 * commands of `easyai` (their flag tables read from their own Options): every
 * flag a command does not take is refused wherever it stands and however it
 * is spelled; every flag it takes passes, values included.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { builtInFlags, chooseCommand, CommandLineError } from "../../../src/programs/cli/commandLine.js"
import { root, subcommands } from "../../../src/programs/cli/commands.js"

const builtIns = builtInFlags(root.command.descriptor)

const choose = (...argv: ReadonlyArray<string>) => chooseCommand(argv, root, subcommands, builtIns).pipe(Effect.either)

/** The command a command line runs, or the one line it is refused with. */
const outcome = (...argv: ReadonlyArray<string>) =>
  Effect.map(
    choose(...argv),
    Either.match({
      onLeft: (error) => `${error.command}: ${error.message}`,
      onRight: (chosen) => (chosen._tag === "Root" ? "easyai" : `easyai ${chosen.subcommand.name}`)
    })
  )

/** A valid flag of each command (with its value), and one the command does not take. */
const cases = [
  { name: "chat", valid: ["--url", "http://127.0.0.1:1"], foreign: "--port" },
  { name: "serve", valid: ["-m", "model.gguf"], foreign: "--stdio" },
  { name: "mcp", valid: ["--port", "0"], foreign: "--temperature" },
  { name: "models", valid: ["--url", "http://127.0.0.1:1"], foreign: "--temperature" },
  { name: "tools", valid: ["--no-python"], foreign: "--port" },
  { name: "health", valid: ["--url", "http://127.0.0.1:1"], foreign: "--no-tools" },
  { name: "props", valid: ["--url", "http://127.0.0.1:1"], foreign: "--sandbox" },
  { name: "metrics", valid: ["--url", "http://127.0.0.1:1"], foreign: "--model" },
  { name: "preset", valid: ["--url", "http://127.0.0.1:1"], foreign: "--stdio" }
] as const

describe("the command line check", () => {
  it("reads each command's flags, aliases and values from its Options", () => {
    const serve = subcommands[1]
    expect(serve.name).toBe("serve")
    expect(serve.flags.get("--model")).toBe(true)
    expect(serve.flags.get("-m")).toBe(true)
    expect(serve.flags.get("--np")).toBe(true)
    expect(serve.flags.get("--no-tools")).toBe(false)
    expect(serve.flags.get("--api-key")).toBe(true)
    expect(serve.flags.has("--stdio")).toBe(false)
    expect(serve.flags.get("--temperature")).toBe(true)
    expect(root.flags.get("--temperature")).toBe(true)
    expect(root.flags.get("-y")).toBe(false)
    expect([...builtIns.keys()].sort()).toEqual(["--completions", "--help", "--log-level", "--version", "--wizard", "-h"])
  })

  for (const { foreign, name, valid } of cases) {
    it.effect(`refuses ${foreign} under ${name} before, between and after valid flags, and as ${foreign}=value`, () =>
      Effect.gen(function*() {
        const line = `easyai ${name}: unknown flag ${foreign} (see easyai ${name} --help)`
        const positional = name === "preset" ? ["precise"] : []
        expect(yield* outcome(name, foreign, "1", ...valid, "--help", ...positional)).toBe(line)
        expect(yield* outcome(name, ...valid, foreign, "1", "--log-level", "info", ...positional)).toBe(line)
        expect(yield* outcome(name, ...valid, ...positional, foreign)).toBe(line)
        expect(yield* outcome(name, ...valid, `${foreign}=secret`, ...positional)).toBe(line)
        expect(yield* outcome(name, ...valid, ...positional)).toBe(`easyai ${name}`)
      }))
  }

  it.effect("refuses a flag the root does not take, and the root's flags before a subcommand", () =>
    Effect.gen(function*() {
      expect(yield* outcome("-m", "model.gguf", "--port", "8080")).toBe("easyai: unknown flag --port (see easyai --help)")
      expect(yield* outcome("--PORT=8080")).toBe("easyai: unknown flag --PORT (see easyai --help)")
      expect(yield* outcome("--shell", "serve", "-m", "model.gguf")).toBe(
        "easyai serve: unknown flag --shell (see easyai serve --help)"
      )
      expect(yield* outcome("--api-key", "k", "serve", "-m", "model.gguf")).toBe(
        "easyai serve: --api-key must come after \"serve\" (see easyai serve --help)"
      )
    }))

  it.effect("refuses short flags run together, which @effect/cli would keep only the last of", () =>
    Effect.gen(function*() {
      expect(yield* outcome("chat", "-yv")).toBe(
        "easyai chat: unknown flag -yv: give short flags one at a time (-y -v) (see easyai chat --help)"
      )
      expect(yield* outcome("-y", "-v", "--no-tools")).toBe("easyai")
    }))

  it.effect("takes every flag a command has, case aside, with values that look like flags or numbers", () =>
    Effect.gen(function*() {
      expect(yield* outcome("serve", "-m", "m.gguf", "--port", "0", "--no-tools", "--api-key", "k")).toBe("easyai serve")
      expect(yield* outcome("serve", "--api-key=k", "--NO-TOOLS", "--np", "2", "-M", "m.gguf")).toBe("easyai serve")
      expect(yield* outcome("--frequency-penalty", "-1", "--temperature=-0.5", "-s", "--help me", "--no-tools")).toBe("easyai")
      // A subcommand's name as the value of a flag after the subcommand stays a value.
      expect(yield* outcome("serve", "-m", "m.gguf", "--alias", "chat")).toBe("easyai serve")
      // Built-ins stand anywhere; after `--` nothing is a flag.
      expect(yield* outcome("--log-level", "debug", "serve", "--help")).toBe("easyai serve")
      expect(yield* outcome("preset", "--url", "http://127.0.0.1:1", "--", "--not-a-flag")).toBe("easyai preset")
    }))

  it.effect("fails with a typed error naming the command and the flag, never its value", () =>
    Effect.gen(function*() {
      const refused = yield* choose("serve", "--prompt=secret-words", "--key=hunter2")
      expect(Either.isLeft(refused)).toBe(true)
      if (Either.isLeft(refused)) {
        expect(refused.left).toBeInstanceOf(CommandLineError)
        expect(refused.left).toMatchObject({ command: "easyai serve", flag: "--prompt", reason: "Unknown" })
        expect(refused.left.message).not.toContain("secret")
      }
    }))

  it.effect("refuses a flag that takes a value at the end of the command line, where @effect/cli would read a subcommand", () =>
    Effect.gen(function*() {
      expect(yield* outcome("-p")).toBe("easyai: -p needs a value (see easyai --help)")
      expect(yield* outcome("serve", "--port", "1", "-m")).toBe("easyai serve: -m needs a value (see easyai serve --help)")
      expect(yield* outcome("-p", "--", "x")).toBe("easyai: -p needs a value (see easyai --help)")
      expect(yield* outcome("--yes")).toBe("easyai")
    }))
})
