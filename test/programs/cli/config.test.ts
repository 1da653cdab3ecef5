/**
 * `easyai.ini`: typed sections, errors that point at the line, warnings for
 * unknown names, per-model profiles and the precedence helper.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import { homedir } from "node:os"
import * as path from "node:path"
import { ConfigFileError, emptyConfig, loadConfig, modelName, modelSettings, pick } from "../../../src/programs/cli/config.js"
import { tempDir } from "../../support/tempDir.js"

/** Writes `text` to `name` in a fresh temporary directory; that directory. */
const withFile = (name: string, text: string) =>
  Effect.sync(() => {
    const dir = tempDir("easyai-config-")
    writeFileSync(path.join(dir, name), text)
    return dir
  })

const lines = (...text: ReadonlyArray<string>): string => text.join("\n") + "\n"

describe("loadConfig", () => {
  it.effect("decodes every section into typed values", () =>
    Effect.gen(function*() {
      const dir = yield* withFile(
        "easyai.ini",
        lines(
          "; easyai settings",
          "[ENGINE]",
          "temperature      = 0.2",
          "top_p            = 0.92",
          "top_k            = 50",
          "min_p            = 0.03",
          "repeat_penalty   = 1.04",
          "presence_penalty = -0.5",
          "frequency_penalty = 0.05",
          "max_tokens       = 2048",
          "context          = 262144",
          "threads          = 8",
          "ngl              = auto",
          "flash_attn       = AUTO",
          "cache_type_k     = q8_0",
          "cache_type_v     = q4_0",
          "mlock            = on",
          "mmap             = off",
          "preset           = Creative",
          "rope_scaling     = yarn",
          "rope_freq_scale  = 2",
          "yarn_orig_ctx    = 131072",
          "split_mode       = row",
          "",
          "[SERVER]",
          "host = 0.0.0.0",
          "port = 0",
          "parallel = 4",
          "queue = 0",
          "api_key = s3cret",
          "alias = EasyAi",
          "system_file = prompts/system.md",
          "http_timeout = 600",
          "grace = 0",
          "max_body = 1048576",
          "cors = localhost",
          "allowed_hosts = ai.example.com, proxy.example:8443",
          "body_timeout = 20",
          "max_client_connections = 8",
          "inject = no",
          "webui_title = Box AI",
          "webui_placeholder = Ask the box…",
          "",
          "[cli]",
          "url = http://ai.local:8080",
          "api_key = k3y",
          "model_name = qwen",
          "timeout = 30",
          "http_retries = 0",
          "model = hf:user/repo/model.gguf",
          "prompt_progress = false",
          "reasoning = 1",
          "sandbox = /srv/sandbox",
          "allow_bash = yes",
          "memory = ~/memory",
          "skills = ../skills",
          "external_tools = tools",
          "tools_mode = unified",
          "tools = datetime, plan ,web",
          "mcp = http://127.0.0.1:8090/mcp=docs, https://mcp.example/x",
          "auto_approve = fs_read*,datetime",
          "yes = 0"
        )
      )
      const config = yield* loadConfig(undefined, dir)
      expect(config.file).toBe(path.join(dir, "easyai.ini"))
      expect(config.warnings).toEqual([])
      expect(config.engine).toEqual({
        temperature: 0.2,
        topP: 0.92,
        topK: 50,
        minP: 0.03,
        repeatPenalty: 1.04,
        presencePenalty: -0.5,
        frequencyPenalty: 0.05,
        maxTokens: 2048,
        context: 262144,
        threads: 8,
        ngl: "auto",
        flashAttn: "auto",
        cacheTypeK: "q8_0",
        cacheTypeV: "q4_0",
        mlock: true,
        mmap: false,
        preset: "creative",
        ropeScaling: "yarn",
        ropeFreqScale: 2,
        yarnOrigCtx: 131072,
        splitMode: "row"
      })
      const { apiKey: serverKey, ...server } = config.server
      expect(server).toEqual({
        host: "0.0.0.0",
        port: 0,
        parallel: 4,
        queue: 0,
        alias: "EasyAi",
        systemFile: path.join(dir, "prompts", "system.md"),
        httpTimeout: 600,
        grace: 0,
        maxBody: 1048576,
        cors: "localhost",
        allowedHosts: ["ai.example.com", "proxy.example:8443"],
        bodyTimeout: 20,
        maxClientConnections: 8,
        inject: false,
        webuiTitle: "Box AI",
        webuiPlaceholder: "Ask the box…"
      })
      expect(serverKey !== undefined && Redacted.isRedacted(serverKey)).toBe(true)
      expect(serverKey && Redacted.value(serverKey)).toBe("s3cret")
      expect(String(serverKey)).not.toContain("s3cret")
      const { apiKey: cliKey, ...cli } = config.cli
      expect(cliKey && Redacted.value(cliKey)).toBe("k3y")
      expect(cli).toEqual({
        url: "http://ai.local:8080",
        modelName: "qwen",
        timeout: 30,
        httpRetries: 0,
        model: "hf:user/repo/model.gguf",
        promptProgress: false,
        reasoning: true,
        sandbox: "/srv/sandbox",
        allowBash: true,
        memory: path.join(homedir(), "memory"),
        skills: path.resolve(dir, "..", "skills"),
        externalTools: path.join(dir, "tools"),
        toolsMode: "unified",
        tools: ["datetime", "plan", "web"],
        mcp: ["http://127.0.0.1:8090/mcp=docs", "https://mcp.example/x"],
        autoApprove: ["fs_read*", "datetime"],
        yes: false
      })
      expect(config.models).toEqual([])
    }))

  it.effect("keeps only the keys the file sets, and reads a named file relative to cwd", () =>
    Effect.gen(function*() {
      const dir = yield* withFile("custom.ini", lines("[cli]", "model = models/m.gguf"))
      const config = yield* loadConfig("custom.ini", dir)
      expect(config.file).toBe("custom.ini")
      expect(config.engine).toEqual({})
      expect(config.server).toEqual({})
      expect(config.cli).toEqual({ model: path.join(dir, "models", "m.gguf") })
    }))

  it.effect("reads every boolean spelling and quoted values", () =>
    Effect.gen(function*() {
      const spellings = ["on", "OFF", "True", "false", "YES", "no", "1", "0"]
      const dir = yield* withFile(
        "easyai.ini",
        lines(
          "[cli]",
          ...spellings.map((word, index) => `${["yes", "reasoning", "allow_bash", "prompt_progress"][index % 4]} = ${word}`),
          "api_key = \"a;b#c\"",
          "model_name = 'my model'",
          "",
          "[ENGINE]",
          "mlock = \"yes\"",
          "temperature = \"0.5\"",
          "top_p = 0.9 ; a comment",
          "cache_type_k = \" q8_0 \""
        )
      )
      const config = yield* loadConfig(undefined, dir)
      // The last four spellings win: YES, no, 1, 0.
      expect(config.cli.yes).toBe(true)
      expect(config.cli.reasoning).toBe(false)
      expect(config.cli.allowBash).toBe(true)
      expect(config.cli.promptProgress).toBe(false)
      expect(config.cli.apiKey && Redacted.value(config.cli.apiKey)).toBe("a;b#c")
      expect(config.cli.modelName).toBe("my model")
      expect(config.engine).toEqual({ mlock: true, temperature: 0.5, topP: 0.9, cacheTypeK: " q8_0 " })
    }))

  it.effect("names the file, line, section and key of a bad value", () =>
    Effect.gen(function*() {
      const dir = yield* withFile(
        "easyai.ini",
        lines(
          "; settings",
          "[SERVER]",
          "port = 8080",
          "",
          "[ENGINE]",
          "top_k = 40",
          "",
          "; the sampling",
          "",
          "",
          "min_p = 0.05",
          "temperature = hot",
          "context = 4096"
        )
      )
      const error = yield* Effect.flip(loadConfig("easyai.ini", dir))
      expect(error).toBeInstanceOf(ConfigFileError)
      expect(error.message).toBe("easyai.ini:12: [ENGINE] temperature: expected a number from 0 to 5, got \"hot\"")
      expect({ file: error.file, line: error.line, section: error.section, key: error.key }).toEqual({
        file: "easyai.ini",
        line: 12,
        section: "ENGINE",
        key: "temperature"
      })
    }))

  const badValues: ReadonlyArray<{ readonly kind: string; readonly text: string; readonly line: number; readonly message: string }> = [
    {
      kind: "a number out of range",
      text: lines("[ENGINE]", "temperature = 0.7", "top_p = 1.5"),
      line: 3,
      message: "[ENGINE] top_p: expected a number from 0 to 1, got \"1.5\""
    },
    {
      kind: "not a number",
      text: lines("[ENGINE]", "top_k = lots", "min_p = 0"),
      line: 2,
      message: "[ENGINE] top_k: expected a whole number of at least 0, got \"lots\""
    },
    {
      kind: "a fraction where a whole number belongs",
      text: lines("[SERVER]", "host = ::", "parallel = 1.5"),
      line: 3,
      message: "[SERVER] parallel: expected a whole number of at least 1, got \"1.5\""
    },
    {
      kind: "a port out of range",
      text: lines("[SERVER]", "", "port = 70000"),
      line: 3,
      message: "[SERVER] port: expected a port from 0 to 65535, got \"70000\""
    },
    {
      kind: "a bad choice",
      text: lines("[ENGINE]", "; yarn needs yarn_orig_ctx", "rope_scaling = cubic"),
      line: 3,
      message: "[ENGINE] rope_scaling: expected one of none, linear, yarn, got \"cubic\""
    },
    {
      kind: "a bad preset",
      text: lines("[ENGINE]", "preset = spicy"),
      line: 2,
      message: "[ENGINE] preset: expected one of deterministic, precise, balanced, creative, wild, got \"spicy\""
    },
    {
      kind: "a bad boolean",
      text: lines("[SERVER]", "inject = maybe"),
      line: 2,
      message: "[SERVER] inject: expected on/off, true/false, yes/no or 1/0, got \"maybe\""
    },
    {
      kind: "a CORS entry that is not an origin",
      text: lines("[SERVER]", "cors = chat.example.com"),
      line: 2,
      message: "[SERVER] cors: \"chat.example.com\" is not an origin: write scheme://host[:port], e.g. https://chat.example.com"
    },
    {
      kind: "an allowed host that is not a host",
      text: lines("[SERVER]", "allowed_hosts = https://ai.example.com"),
      line: 2,
      message: "[SERVER] allowed_hosts: \"https://ai.example.com\" is not a host name: write name or name:port, e.g. ai.example.com"
    },
    {
      kind: "a bad URL",
      text: lines("[cli]", "url = ftp://ai.local"),
      line: 2,
      message: "[cli] url: expected an http:// or https:// URL, got \"ftp://ai.local\""
    },
    {
      kind: "a bad MCP entry",
      text: lines("[cli]", "mcp = http://a.example/mcp=docs, docs"),
      line: 2,
      message: "[cli] mcp: expected URL or URL=alias entries, got \"docs\""
    },
    {
      kind: "an empty value",
      text: lines("[cli]", "model_name ="),
      line: 2,
      message: "[cli] model_name: expected a value, got \"\""
    },
    {
      kind: "a list where one value belongs",
      text: lines("[SERVER]", "port[] = 1", "port[] = 2"),
      line: 3,
      message: "[SERVER] port: expected a port from 0 to 65535, got a list of 2 values"
    },
    {
      kind: "a bad value in a model section, set twice (the last counts)",
      text: lines("[ENGINE]", "top_p = 0.9", "[MODEL_Qwen3]", "top_p = 0.5", "top_p = 2"),
      line: 5,
      message: "[MODEL_Qwen3] top_p: expected a number from 0 to 1, got \"2\""
    },
    {
      kind: "a setting given under two names",
      text: lines("[ENGINE]", "context = 4096", "ctx_size = 8192"),
      line: 3,
      message: "[ENGINE] ctx_size: context is set already: they are the same setting, keep one"
    }
  ]

  for (const { kind, line, message, text } of badValues) {
    it.effect(`fails on ${kind}`, () =>
      Effect.gen(function*() {
        const dir = yield* withFile("bad.ini", text)
        const error = yield* Effect.flip(loadConfig(path.join(dir, "bad.ini"), dir))
        expect(error.message).toBe(`${path.join(dir, "bad.ini")}:${line}: ${message}`)
        expect(error.line).toBe(line)
      }))
  }

  it.effect("warns about unknown keys and sections, suggesting the closest name", () =>
    Effect.gen(function*() {
      const dir = yield* withFile(
        "easyai.ini",
        lines(
          "temperature = 0.3",
          "[ENGINE]",
          "top_p = 0.9",
          "temprature = 0.4",
          "colour = blue",
          "",
          "[SERVR]",
          "port = 1",
          "[MODELS_qwen]",
          "[cli]",
          "CTX = 3"
        )
      )
      const config = yield* loadConfig("easyai.ini", dir)
      expect(config.engine).toEqual({ topP: 0.9 })
      expect(config.server).toEqual({})
      expect(config.warnings).toEqual([
        "easyai.ini:1: temperature is outside any section (put it under [ENGINE])",
        "easyai.ini:4: [ENGINE] temprature is not a known key (did you mean temperature?)",
        "easyai.ini:5: [ENGINE] colour is not a known key",
        "easyai.ini:7: [SERVR] is not a known section (did you mean [SERVER]?)",
        "easyai.ini:9: [MODELS_qwen] is not a known section (did you mean [MODEL_<pattern>]?)",
        "easyai.ini:11: [cli] CTX is not a known key"
      ])
    }))

  it.effect("reads the chat's shell, verbose, log_file and auto_approve keys", () =>
    Effect.gen(function*() {
      const dir = yield* withFile(
        "easyai.ini",
        lines(
          "[cli]",
          "shell = on",
          "verbose = yes",
          "log_file = logs/easyai.log",
          "auto_approve = docs.* , bash,, datetime"
        )
      )
      const config = yield* loadConfig(undefined, dir)
      expect(config.warnings).toEqual([])
      expect(config.cli).toEqual({
        shell: true,
        verbose: true,
        logFile: path.join(dir, "logs", "easyai.log"),
        autoApprove: ["docs.*", "bash", "datetime"]
      })
    }))

  it.effect("takes log_file from home or as absolute, auto_approve from repeated lines, and off for the booleans", () =>
    Effect.gen(function*() {
      const dir = yield* withFile(
        "easyai.ini",
        lines(
          "[cli]",
          "shell = off",
          "verbose = 0",
          "log_file = ~/easyai.log",
          "auto_approve[] = docs.search",
          "auto_approve[] = mail.*, *"
        )
      )
      const config = yield* loadConfig(undefined, dir)
      expect(config.cli).toEqual({
        shell: false,
        verbose: false,
        logFile: path.join(homedir(), "easyai.log"),
        autoApprove: ["docs.search", "mail.*", "*"]
      })
      const absolute = yield* withFile("easyai.ini", lines("[cli]", "log_file = /var/log/easyai.log"))
      expect((yield* loadConfig(undefined, absolute)).cli).toEqual({ logFile: "/var/log/easyai.log" })
    }))

  it.effect("reads isolate and tool_env in [cli] and [SERVER]", () =>
    Effect.gen(function*() {
      const dir = yield* withFile(
        "easyai.ini",
        lines("[cli]", "isolate = On", "tool_env = PROJECT_TOKEN, GIT_AUTHOR_NAME", "[SERVER]", "isolate = off", "tool_env[] = A", "tool_env[] = B")
      )
      const config = yield* loadConfig(undefined, dir)
      expect(config.warnings).toEqual([])
      expect(config.cli).toEqual({ isolate: "on", toolEnv: ["PROJECT_TOKEN", "GIT_AUTHOR_NAME"] })
      expect(config.server).toEqual({ isolate: "off", toolEnv: ["A", "B"] })
    }))

  const badToolValues: ReadonlyArray<{ readonly text: string; readonly message: string }> = [
    { text: lines("[cli]", "isolate = maybe"), message: "[cli] isolate: expected one of auto, on, off, got \"maybe\"" },
    {
      text: lines("[SERVER]", "tool_env = PATH, EASYAI_API_KEY"),
      message: "[SERVER] tool_env: EASYAI_API_KEY cannot be passed to tools: easyai's own variables (EASYAI_*, its API keys among them) never reach a tool process"
    },
    { text: lines("[cli]", "tool_env = not-a-name"), message: "[cli] tool_env: \"not-a-name\" is not a variable name (letters, digits and _)" }
  ]
  for (const { message, text } of badToolValues) {
    it.effect(`fails on ${message}`, () =>
      Effect.gen(function*() {
        const dir = yield* withFile("easyai.ini", text)
        const error = yield* Effect.flip(loadConfig("easyai.ini", dir))
        expect(error.message).toBe(`easyai.ini:2: ${message}`)
      }))
  }

  const badChatValues: ReadonlyArray<{ readonly text: string; readonly message: string }> = [
    { text: lines("[cli]", "shell = sometimes"), message: "[cli] shell: expected on/off, true/false, yes/no or 1/0, got \"sometimes\"" },
    { text: lines("[cli]", "verbose = loud"), message: "[cli] verbose: expected on/off, true/false, yes/no or 1/0, got \"loud\"" },
    { text: lines("[cli]", "log_file ="), message: "[cli] log_file: expected a path, got \"\"" }
  ]
  for (const { message, text } of badChatValues) {
    it.effect(`fails on ${message}`, () =>
      Effect.gen(function*() {
        const dir = yield* withFile("easyai.ini", text)
        const error = yield* Effect.flip(loadConfig("easyai.ini", dir))
        expect(error.message).toBe(`easyai.ini:2: ${message}`)
      }))
  }

  it.effect("suggests the chat's keys for a misspelling", () =>
    Effect.gen(function*() {
      const dir = yield* withFile("easyai.ini", lines("[cli]", "verbos = on", "logfile = x.log", "auto_aprove = bash"))
      const config = yield* loadConfig("easyai.ini", dir)
      expect(config.cli).toEqual({})
      expect(config.warnings).toEqual([
        "easyai.ini:2: [cli] verbos is not a known key (did you mean verbose?)",
        "easyai.ini:3: [cli] logfile is not a known key (did you mean log_file?)",
        "easyai.ini:4: [cli] auto_aprove is not a known key (did you mean auto_approve?)"
      ])
    }))

  it.effect("accepts ctx_size for context, and section names in any case", () =>
    Effect.gen(function*() {
      const dir = yield* withFile("easyai.ini", lines("[engine]", "ctx_size = 8192", "[Server]", "PORT = 9000"))
      const config = yield* loadConfig(undefined, dir)
      expect(config.engine).toEqual({ context: 8192 })
      expect(config.server).toEqual({ port: 9000 })
    }))

  it.effect("fails when a named file is missing", () =>
    Effect.gen(function*() {
      const dir = tempDir("easyai-config-")
      const error = yield* Effect.flip(loadConfig("nope.ini", dir))
      expect(error._tag).toBe("ConfigFileError")
      expect(error.line).toBe(0)
      expect(error.file).toBe("nope.ini")
      expect(error.message).toBe("nope.ini: no such file")
    }))

  it.effect("fails when the file cannot be read", () =>
    Effect.gen(function*() {
      const dir = tempDir("easyai-config-")
      mkdirSync(path.join(dir, "easyai.ini"))
      const error = yield* Effect.flip(loadConfig(undefined, dir))
      expect(error.line).toBe(0)
      expect(error.message).toMatch(/easyai\.ini: cannot be read \(EISDIR/)
    }))

  it.effect("is empty without a file", () =>
    Effect.gen(function*() {
      const config = yield* loadConfig(undefined, tempDir("easyai-config-"))
      expect(config).toEqual(emptyConfig)
      expect(config.file).toBeUndefined()
    }))
})

describe("modelSettings", () => {
  const profiles = lines(
    "[ENGINE]",
    "temperature = 0.2",
    "top_k = 40",
    "context = 4096",
    "",
    "[MODEL_qwen3]",
    "temperature = 0.5",
    "top_p = 0.8",
    "",
    "[MODEL_QWEN3-CODER-NEXT]",
    "temperature = 0.7",
    "context = 262144",
    "",
    "[MODEL_Qwen2.5-Coder]",
    "top_k = 20"
  )

  it.effect("follows a symlink and applies the longest matching pattern over [ENGINE]", () =>
    Effect.gen(function*() {
      const dir = yield* withFile("easyai.ini", profiles)
      const real = path.join(dir, "Qwen3-Coder-Next-Q6_K_M.gguf")
      writeFileSync(real, "GGUF")
      symlinkSync(real, path.join(dir, "ai.gguf"))
      const config = yield* loadConfig(undefined, dir)
      expect(config.models.map((model) => model.pattern)).toEqual(["qwen3", "QWEN3-CODER-NEXT", "Qwen2.5-Coder"])
      const match = yield* modelSettings(config, path.join(dir, "ai.gguf"))
      expect(match.name).toBe("Qwen3-Coder-Next-Q6_K_M")
      expect(match.pattern).toEqual(Option.some("QWEN3-CODER-NEXT"))
      expect(match.settings).toEqual({ temperature: 0.7, topK: 40, context: 262144 })
    }))

  it.effect("uses a shorter pattern when only it matches, and [ENGINE] alone when none does", () =>
    Effect.gen(function*() {
      const dir = yield* withFile("easyai.ini", profiles)
      const config = yield* loadConfig(undefined, dir)
      const small = yield* modelSettings(config, path.join(dir, "Qwen3-4B-Q4_K_M.gguf"))
      expect(small.pattern).toEqual(Option.some("qwen3"))
      expect(small.settings).toEqual({ temperature: 0.5, topP: 0.8, topK: 40, context: 4096 })
      const dotted = yield* modelSettings(config, "hf:Qwen/repo/qwen2.5-coder-7b-instruct-q4_k_m.gguf")
      expect(dotted.pattern).toEqual(Option.some("Qwen2.5-Coder"))
      expect(dotted.settings.topK).toBe(20)
      const other = yield* modelSettings(config, path.join(dir, "Llama-3.1-8B.gguf"))
      expect(other.pattern).toEqual(Option.none())
      expect(other.settings).toEqual(config.engine)
    }))

  it("names a model by its base name without the extension", () => {
    expect(modelName("/m/Qwen3-Coder-Next-Q6_K_M.gguf")).toBe("Qwen3-Coder-Next-Q6_K_M")
    expect(modelName("/m/Llama-3.1-8B")).toBe("Llama-3.1-8B")
    expect(modelName("model.Q4_K_M")).toBe("model.Q4_K_M")
  })
})

describe("pick", () => {
  it("takes the flag, then the first layer that is set", () => {
    expect(pick(Option.some(1), 2, 3, 4)).toBe(1)
    expect(pick(Option.none(), undefined, 3, 4)).toBe(3)
    expect(pick(Option.none(), 2, 3)).toBe(2)
    expect(pick(Option.some(false), true)).toBe(false)
    expect(pick(Option.none<number>(), undefined, undefined)).toBeUndefined()
    expect(pick(Option.none<number>())).toBeUndefined()
  })
})
