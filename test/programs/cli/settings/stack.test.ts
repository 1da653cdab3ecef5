/**
 * Settings into the library's configurations: the INI keys that used to be
 * decoded and dropped reach the engine, and the agent settings reach the
 * stack every program builds, serve's included.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import * as NoChatModel from "../../../../src/layers/model/NoChatModel.js"
import { ToolCall } from "../../../../src/domain/ToolCall.js"
import { Approval } from "../../../../src/services/Approval.js"
import { type FlagValue, type Id, resolve } from "../../../../src/programs/cli/settings/resolve.js"
import type { Program } from "../../../../src/programs/cli/settings/Setting.js"
import * as Stack from "../../../../src/programs/cli/settings/stack.js"
import { tempDir } from "../../../support/tempDir.js"

const settingsOf = (program: Program, ini: string, flags: ReadonlyArray<readonly [Id, string]> = []) =>
  Effect.gen(function*() {
    const dir = tempDir("easyai-stack-")
    writeFileSync(path.join(dir, "easyai.ini"), ini)
    mkdirSync(path.join(dir, "skills"))
    mkdirSync(path.join(dir, "tools"))
    const given = new Map<Id, FlagValue>(flags.map(([id, text]) => [id, { flag: `--${id}`, text }]))
    return { dir, settings: yield* resolve(program, given, dir).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map()))) }
  })

describe("the engine's configuration", () => {
  it.effect("takes every engine key of the file: GPU layers, flash attention, KV cache types, mlock, mmap, batch, seed, sequences", () =>
    Effect.gen(function*() {
      const { settings } = yield* settingsOf("chat", [
        "[ENGINE]",
        "ngl = 0",
        "flash_attn = on",
        "cache_type_k = q8_0",
        "cache_type_v = q4_0",
        "mlock = on",
        "mmap = off",
        "batch_size = 128",
        "seed = 42",
        "parallel = 3",
        "repeat_penalty = 1.2",
        "context = 2048",
        "threads = 2"
      ].join("\n"))
      expect(Stack.engineConfig(settings, "/m/model.gguf")).toMatchObject({
        modelPath: "/m/model.gguf",
        gpuLayers: 0,
        flashAttention: true,
        kvCacheType: { key: "q8_0", value: "q4_0" },
        useMlock: true,
        useMmap: false,
        batchSize: 128,
        seed: 42,
        sequences: 3,
        contextSize: 2048,
        threads: 2,
        penalties: { repeatPenalty: 1.2, frequencyPenalty: 0.05, presencePenalty: 0.1 }
      })
    }))

  it.effect("passes on what the runtime cannot honour, for it to refuse, and leaves it out when unset", () =>
    Effect.gen(function*() {
      const { settings } = yield* settingsOf("serve", "[SERVER]\nrope_scaling = yarn\nsplit_mode = row\n")
      expect(Stack.engineConfig(settings, "m.gguf")).toMatchObject({ ropeScaling: { type: "yarn" }, splitMode: "row" })
      const plain = Stack.engineConfig((yield* settingsOf("serve", "")).settings, "m.gguf")
      expect(plain.ropeScaling).toBeUndefined()
      expect(plain.splitMode).toBeUndefined()
      expect(plain.kvCacheType).toBeUndefined()
    }))
})

describe("the agent stack", () => {
  it.effect("gives easyai serve memory, skills, a workspace, external tools, the hop budget, the preamble and sampling", () =>
    Effect.gen(function*() {
      const { dir, settings } = yield* settingsOf("serve", [
        "[SERVER]",
        "memory = notes",
        "skills = skills",
        "skills_mode = full",
        "skill_commands = /usr/bin/git",
        "workspace = .",
        "external_tools = tools",
        "max_tool_hops = 3",
        "knowledge_cutoff = 2025-06",
        "cite_sources = on",
        "mcp = http://127.0.0.1:1/mcp=docs",
        "http_retries = 1",
        "[ENGINE]",
        "temperature = 0.4",
        "top_k = 9"
      ].join("\n"))
      const options = yield* Stack.stackOptions(settings, { model: NoChatModel.layer("none") })
      expect(options.memory).toBe(path.join(dir, "notes"))
      expect(options.skills).toEqual({ directories: [path.join(dir, "skills")], mode: "full", options: { allowedCommands: ["/usr/bin/git"] } })
      expect(options.workspace).toBe(dir)
      expect(options.host).toMatchObject({ externalTools: path.join(dir, "tools"), fs: false, bash: false })
      expect(options.agent).toEqual({ maxToolHops: 3 })
      expect(options.preamble).toEqual({ knowledgeCutoff: "2025-06", citeSources: true })
      expect(options.mcp).toEqual({ servers: [{ url: "http://127.0.0.1:1/mcp", alias: "docs" }], retries: 1 })
      expect(options.session?.sampling).toEqual({ temperature: 0.4, topK: 9 })
    }))

  it.effect("sends the remote client the timeout (24 hours by default), stop sequences, extra body and seed", () =>
    Effect.gen(function*() {
      const { settings } = yield* settingsOf("chat", "[cli]\nextra_body = {\"reasoning_effort\":\"high\"}\nstop[] = </s>\nstop[] = END\nseed = 7\n")
      const config = Stack.clientConfig(settings, "http://127.0.0.1:1")
      expect(config).toMatchObject({ extraBody: { reasoning_effort: "high" }, stop: ["</s>", "END"], seed: 7, retries: 5 })
      expect(Duration.toSeconds(Duration.decode(config.timeout ?? 0))).toBe(86_400)
    }))

  it.effect("lets easyai serve run every call, or with --auto-approve only local tools and the MCP tools it names", () =>
    Effect.gen(function*() {
      const decide = (gate: ReturnType<typeof Stack.approval>, ...names: ReadonlyArray<string>) =>
        Effect.flatMap(Approval, (approval) =>
          Effect.forEach(names, (name) => Effect.map(approval.check(new ToolCall({ id: name, name, arguments: "{}" })), (decision) => decision._tag))).pipe(
            Effect.provide(gate)
          )
      const open = (yield* settingsOf("serve", "")).settings
      expect(yield* decide(Stack.approval(open), "datetime", "docs__search", "other__delete")).toEqual(["Approved", "Approved", "Approved"])
      const narrowed = (yield* settingsOf("serve", "[SERVER]\nauto_approve = docs.*\n")).settings
      expect(yield* decide(Stack.approval(narrowed), "datetime", "docs__search", "other__delete")).toEqual(["Approved", "Approved", "Denied"])
    }))

  it.effect("refuses --allow-bash without --sandbox", () =>
    Effect.gen(function*() {
      const { settings } = yield* settingsOf("mcp", "[MCP]\nallow_bash = on\n")
      const error = yield* Effect.flip(Stack.stackOptions(settings, { model: NoChatModel.layer("none") }))
      expect(error.message).toBe("--allow-bash needs --sandbox DIR: the shell runs inside the sandbox")
    }))
})
