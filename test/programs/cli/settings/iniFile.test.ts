/**
 * `easyai.ini` as the resolver reads it: quoted values, every boolean
 * spelling, lists, paths from the file's directory, errors at the right
 * line, nothing unknown left unsaid, and `[MODEL_<pattern>]` matched by the
 * model's real name, the longest pattern winning.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Option, Redacted } from "effect"
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import { homedir } from "node:os"
import * as path from "node:path"
import { type FlagValue, get, type Id, modelName, resolve } from "../../../../src/programs/cli/settings/resolve.js"
import type { Program } from "../../../../src/programs/cli/settings/Setting.js"
import { tempDir } from "../../../support/tempDir.js"

const lines = (...text: ReadonlyArray<string>): string => text.join("\n") + "\n"

/** Resolves `program` in a fresh directory holding `easyai.ini` with `text`, with no environment. */
const withFile = (program: Program, text: string, flags: ReadonlyArray<readonly [Id, string]> = []) =>
  Effect.gen(function*() {
    const dir = tempDir("easyai-ini-")
    writeFileSync(path.join(dir, "easyai.ini"), text)
    const given = new Map<Id, FlagValue>(flags.map(([id, value]) => [id, { flag: `--${id}`, text: value }]))
    return yield* resolve(program, given, dir).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map())))
  })

const failure = (program: Program, text: string) => Effect.map(Effect.flip(withFile(program, text)), (error) => error.message)

describe("easyai.ini", () => {
  it.effect("reads quoted values, every boolean spelling, key[] lists and comments", () =>
    Effect.gen(function*() {
      const settings = yield* withFile("serve", lines(
        "\uFEFF; settings",
        "[SERVER]",
        "api_key = \"s3cret;with;semicolons\" ; the key",
        "alias = 'my model' # the name",
        "inject = No",
        "[ENGINE]",
        "mlock = YES",
        "temperature = 0.5 ; warm",
        "cache_type_k = Q8_0"
      ))
      expect(Option.map(Option.fromNullable(get(settings, "apiKey")), Redacted.value)).toEqual(Option.some("s3cret;with;semicolons"))
      expect(get(settings, "alias")).toBe("my model")
      expect(get(settings, "inject")).toBe(false)
      expect(get(settings, "mlock")).toBe(true)
      expect(get(settings, "temperature")).toBe(0.5)
      expect(get(settings, "cacheTypeK")).toBe("q8_0")
      const chat = yield* withFile("chat", lines("[cli]", "mcp[] = http://127.0.0.1:1/mcp=a", "mcp[] = http://127.0.0.1:2/mcp=b", "yes = 1", "shell = 0"))
      expect(get(chat, "mcp")).toEqual(["http://127.0.0.1:1/mcp=a", "http://127.0.0.1:2/mcp=b"])
      expect([get(chat, "yes"), get(chat, "shell")]).toEqual([true, false])
    }))

  it.effect("takes relative paths from the file's directory and ~ from home, and accepts ctx_size for context", () =>
    Effect.gen(function*() {
      const settings = yield* withFile("chat", lines("[cli]", "memory = notes", "log_file = ~/easyai.log", "[ENGINE]", "ctx_size = 4096"))
      const dir = path.dirname(settings.file.pipe(Option.map((file) => path.join(file.base, file.file)), Option.getOrElse(() => "")))
      expect(get(settings, "memory")).toBe(path.join(dir, "notes"))
      expect(get(settings, "logFile")).toBe(path.join(homedir(), "easyai.log"))
      expect(get(settings, "context")).toBe(4096)
    }))

  it.effect("names the file, line, section and key of a bad value, whichever program's it is", () =>
    Effect.gen(function*() {
      const text = lines("; settings", "[SERVER]", "port = 8080", "", "[ENGINE]", "top_k = 40", "", "min_p = 0.05", "temperature = hot")
      expect(yield* failure("chat", text)).toBe("easyai.ini:9: [ENGINE] temperature: expected a number from 0 to 5, got \"hot\"")
      expect(yield* failure("chat", lines("[SERVER]", "port = 99999"))).toBe(
        "easyai.ini:2: [SERVER] port: expected a whole number from 0 to 65535, got \"99999\""
      )
      expect(yield* failure("serve", lines("[SERVER]", "rope = 1"))).toBe("easyai.ini:2: [SERVER] rope is not a setting of this section (did you mean rope_scaling?)")
      expect(yield* failure("serve", lines("[SERVER]", "just words"))).toBe("easyai.ini:2: expected key = value or [section], got \"just words\"")
    }))

  it.effect("refuses unknown sections and keys, and keys in a section no program reads them from, suggesting the right one", () =>
    Effect.gen(function*() {
      expect(yield* failure("chat", lines("[ENGNE]", "temperature = 1"))).toBe(
        "easyai.ini:1: [ENGNE] is not a section: use [ENGINE], [MODEL_<pattern>], [cli], [SERVER] or [MCP] (did you mean [ENGINE]?)"
      )
      expect(yield* failure("chat", lines("[cli]", "temprature = 1"))).toBe(
        "easyai.ini:2: [cli] temprature is not a setting of this section (did you mean temperature?)"
      )
      expect(yield* failure("chat", lines("[ENGINE]", "port = 1"))).toBe(
        "easyai.ini:2: [ENGINE] port is not a setting of this section (port belongs in [SERVER] or [MCP])"
      )
      expect(yield* failure("chat", lines("port = 1"))).toBe("easyai.ini:1: port is outside any section")
    }))

  it.effect("fails when a named file is missing or cannot be read", () =>
    Effect.gen(function*() {
      const dir = tempDir("easyai-ini-")
      const missing = yield* Effect.flip(resolve("chat", new Map([["config", { flag: "--config", text: "nope.ini" }]]), dir))
      expect(missing.message).toBe("--config: \"nope.ini\" does not exist")
      mkdirSync(path.join(dir, "easyai.ini"))
      const unreadable = yield* Effect.flip(resolve("chat", new Map(), dir))
      expect(unreadable.message).toMatch(/^easyai\.ini: cannot be read \(EISDIR/)
      expect(Option.isNone((yield* resolve("chat", new Map(), tempDir())).file)).toBe(true)
    }))
})

describe("[MODEL_<pattern>]", () => {
  const profiles = lines(
    "[ENGINE]",
    "temperature = 0.2",
    "top_k = 40",
    "context = 4096",
    "[MODEL_qwen3]",
    "temperature = 0.5",
    "top_p = 0.8",
    "[MODEL_QWEN3-CODER-NEXT]",
    "temperature = 0.7",
    "context = 262144",
    "[MODEL_Qwen2.5-Coder]",
    "top_k = 20"
  )

  it.effect("follows a symlink and applies the longest matching pattern over [ENGINE]", () =>
    Effect.gen(function*() {
      const dir = tempDir("easyai-ini-")
      const real = path.join(dir, "Qwen3-Coder-Next-Q6_K_M.gguf")
      writeFileSync(real, "GGUF")
      symlinkSync(real, path.join(dir, "ai.gguf"))
      const settings = yield* withFile("serve", profiles, [["model", path.join(dir, "ai.gguf")]])
      expect(settings.profile).toEqual(Option.some("QWEN3-CODER-NEXT"))
      expect([get(settings, "temperature"), get(settings, "topK"), get(settings, "context"), get(settings, "topP")]).toEqual([0.7, 40, 262144, undefined])
    }))

  it.effect("uses a shorter pattern when only it matches (dots kept in section names), and [ENGINE] alone when none does", () =>
    Effect.gen(function*() {
      const small = yield* withFile("chat", profiles, [["model", "/m/Qwen3-4B-Q4_K_M.gguf"]])
      expect(small.profile).toEqual(Option.some("qwen3"))
      expect([get(small, "temperature"), get(small, "topP"), get(small, "topK")]).toEqual([0.5, 0.8, 40])
      const dotted = yield* withFile("chat", profiles, [["model", "hf:Qwen/repo/qwen2.5-coder-7b-instruct-q4_k_m.gguf"]])
      expect(dotted.profile).toEqual(Option.some("Qwen2.5-Coder"))
      expect(get(dotted, "topK")).toBe(20)
      const other = yield* withFile("chat", profiles, [["model", "/m/Llama-3.1-8B.gguf"]])
      expect(other.profile).toEqual(Option.none())
      expect(get(other, "temperature")).toBe(0.2)
    }))

  it("names a model by its base name without the extension", () => {
    expect(modelName("/m/Qwen3-Coder-Next-Q6_K_M.gguf")).toBe("Qwen3-Coder-Next-Q6_K_M")
    expect(modelName("/m/Llama-3.1-8B")).toBe("Llama-3.1-8B")
    expect(modelName("model.Q4_K_M")).toBe("model.Q4_K_M")
  })
})
