/**
 * The settings as a person meets them, through the real `easyai` in a
 * child process: a bad value from a flag, the file or the environment is
 * one line and exit 2, for every program; help is short, plain when piped
 * and derived from the declarations; `easyai config` says where each value
 * came from; `--check` and `easyai tools` fail on a broken manifest; the
 * engine settings the runtime cannot honour are refused, not dropped.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { engineConfig, testModels } from "../../../support/models.js"
import { runCli } from "../../../support/process.js"
import { tempDir } from "../../../support/tempDir.js"

const model = testModels[0]
if (model === undefined) throw new Error("no test model")
const modelPath = engineConfig(model).modelPath

/** Runs `easyai` in `cwd` (a fresh directory by default) with `env` added; it must end on its own. */
const easyai = (args: ReadonlyArray<string>, options: { readonly cwd?: string; readonly env?: Readonly<Record<string, string>> } = {}) =>
  runCli({ cwd: options.cwd ?? tempDir(), ...(options.env === undefined ? {} : { env: options.env }) }, ...args).pipe(
    Effect.timeoutFail({ duration: "60 seconds", onTimeout: () => new Error(`easyai ${args.join(" ")} did not exit`) })
  )

const withIni = (text: string) => {
  const dir = tempDir("easyai-cli-settings-")
  writeFileSync(path.join(dir, "easyai.ini"), text)
  return dir
}

/** Bad input of every kind and program, and the one line it gets. */
const refusals: ReadonlyArray<{ readonly args: ReadonlyArray<string>; readonly line: string; readonly env?: Record<string, string>; readonly ini?: string }> = [
  { args: ["-p", "hi", "--temperature", "9"], line: "easyai: --temperature: expected a number from 0 to 5, got \"9\"" },
  { args: ["-p", "hi", "--top-p", "2"], line: "easyai: --top-p: expected a number from 0 to 1, got \"2\"" },
  { args: ["-p", "hi", "--ctx", "0"], line: "easyai: --ctx: expected a whole number of at least 256, got \"0\"" },
  { args: ["-p", "hi", "--ctx", "-1"], line: "easyai: --ctx: expected a whole number of at least 256, got \"-1\"" },
  { args: ["-p", "hi", "--max-tokens", "-5"], line: "easyai: --max-tokens: expected a whole number of at least 1, got \"-5\"" },
  { args: ["-p"], line: "easyai: -p needs a value (see easyai --help)" },
  { args: ["serve"], line: "easyai serve: --model: required: a GGUF file or a hf:/https:// URI (or model in [SERVER])" },
  { args: ["serve", "-m", modelPath, "--port", "99999"], line: "easyai serve: --port: expected a whole number from 0 to 65535, got \"99999\"" },
  { args: ["serve", "-m", modelPath, "--top-p", "2"], line: "easyai serve: --top-p: expected a number from 0 to 1, got \"2\"" },
  { args: ["serve", "-m", modelPath, "-fa", "sometimes"], line: "easyai serve: --flash-attn: expected on/off, true/false, yes/no or 1/0, or auto, got \"sometimes\"" },
  { args: ["mcp", "--isolate", "maybe"], line: "easyai mcp: --isolate: expected one of auto, on, off, got \"maybe\"" },
  { args: ["tools", "--external-tools", "/no/such/dir"], line: "easyai tools: --external-tools: \"/no/such/dir\" does not exist" },
  { args: ["models"], env: { EASYAI_TIMEOUT: "soon" }, line: "easyai models: EASYAI_TIMEOUT: expected a whole number of at least 1, got \"soon\"" },
  { args: ["mcp"], ini: "[MCP]\nport = 80000\n", line: "easyai mcp: easyai.ini:2: [MCP] port: expected a whole number from 0 to 65535, got \"80000\"" },
  { args: ["-p", "hi"], ini: "[cli]\nport = 1\n", line: "easyai: easyai.ini:2: [cli] port is not a setting of this section (port belongs in [SERVER] or [MCP])" },
  { args: ["-p", "hi", "--no-tools", "--no-local-tools"], line: "easyai: --no-local-tools is given twice: give it once (see easyai --help)" },
  { args: ["serve", "-m", modelPath, "--port", "1", "--port", "2"], line: "easyai serve: --port is given twice: give it once (see easyai serve --help)" }
]

describe("a bad setting", () => {
  for (const { args, env, ini, line } of refusals) {
    it.live(`is one line and exit 2: easyai ${args.join(" ").replace(modelPath, "MODEL")}${ini === undefined ? "" : " (easyai.ini)"}`, () =>
      Effect.gen(function*() {
        const { exitCode, stderr, stdout } = yield* easyai(args, { ...(ini === undefined ? {} : { cwd: withIni(ini) }), ...(env === undefined ? {} : { env }) })
        expect(stderr).toBe(line)
        expect(exitCode).toBe(2)
        expect(stdout).toBe("")
      }), { timeout: 90_000 })
  }
})

describe("help", () => {
  it.live("is short, grouped, free of filler, and plain when piped or under NO_COLOR", () =>
    Effect.gen(function*() {
      for (const env of [{}, { NO_COLOR: "1" }]) {
        const { exitCode, stdout } = yield* easyai(["--help"], { env })
        expect(exitCode).toBe(0)
        const lines = stdout.trimEnd().split("\n")
        expect(lines.length).toBeLessThan(105)
        expect(stdout).not.toContain("\u001b[")
        expect(stdout).not.toContain("A user-defined piece of text")
        expect(stdout).not.toContain("This setting is optional")
        expect(stdout).not.toContain("--wizard")
        expect(stdout).toContain("\nSampling\n")
        expect(lines.find((each) => each.includes("--mcp "))).toMatch(/^ {2}--mcp URL\|COMMAND\[=ALIAS\] +Use the tools of this MCP server/)
        expect(lines.find((each) => each.includes("--timeout "))).toContain("default: 86400")
      }
    }), { timeout: 90_000 })

  it.live("of easyai serve lists the agent's settings the library has: memory, tools, skills, workspace, sampling, logging", () =>
    Effect.gen(function*() {
      const { exitCode, stdout } = yield* easyai(["serve", "--help"])
      expect(exitCode).toBe(0)
      for (const flag of ["--memory", "--external-tools", "--skills", "--workspace", "--temperature", "--repeat-penalty", "--max-tokens", "--seed", "--verbose", "--gpu-layers", "--mlock", "--no-mmap", "--cache-type-k", "--batch-size", "--max-tool-hops", "--knowledge-cutoff", "--auto-approve", "--http-retries"]) {
        expect(stdout, flag).toContain(flag)
      }
    }), { timeout: 90_000 })
})

describe("easyai config", () => {
  it.live("prints every setting with its origin: a flag, file:line, the environment, the default", () =>
    Effect.gen(function*() {
      const cwd = withIni("[ENGINE]\ntemperature = 0.3\ntop_k = 7\n[MODEL_tiny]\ntemperature = 0.6\n[SERVER]\nport = 9000\nqueue = 4\n")
      const args = ["config", "serve", "-m", path.join(cwd, "tiny-model.gguf"), "--queue", "5", "--api-key", "k"]
      const { exitCode, stdout } = yield* easyai(args, { cwd, env: { EASYAI_HTTP_RETRIES: "2" } })
      expect(exitCode).toBe(0)
      const row = (key: string) => stdout.split("\n").find((line) => line.trim().startsWith(`${key} `))?.trim().split(/\s{2,}/)
      expect(row("temperature")).toEqual(["temperature", "0.6", "easyai.ini:5 [MODEL_tiny]"])
      expect(row("top_k")).toEqual(["top_k", "7", "easyai.ini:3 [ENGINE]"])
      expect(row("port")).toEqual(["port", "9000", "easyai.ini:7 [SERVER]"])
      expect(row("queue")).toEqual(["queue", "5", "--queue"])
      expect(row("http_retries")).toEqual(["http_retries", "2", "env EASYAI_HTTP_RETRIES"])
      expect(row("grace")).toEqual(["grace", "10", "default"])
      expect(row("api_key")).toEqual(["api_key", "<hidden>", "--api-key"])
      const json = yield* easyai([...args, "--json"], { cwd })
      const parsed: unknown = JSON.parse(json.stdout)
      expect(parsed).toMatchObject({
        program: "serve",
        file: "easyai.ini",
        profile: "tiny",
        settings: { temperature: { key: "temperature", value: "0.6", origin: "easyai.ini:5 [MODEL_tiny]" }, apiKey: { value: "<hidden>" } }
      })
    }), { timeout: 90_000 })

  it.live("--check, and easyai tools, exit non-zero on a broken manifest and zero when all is well", () =>
    Effect.gen(function*() {
      const dir = tempDir("easyai-manifests-")
      const good = yield* easyai(["config", "--check", "--external-tools", dir])
      expect(good.exitCode).toBe(0)
      writeFileSync(path.join(dir, "EASYAI-broken.tools"), "not json\n")
      const checked = yield* easyai(["config", "--check", "--external-tools", dir])
      expect(checked.exitCode).toBe(1)
      expect(checked.stderr).toContain("external tools: EASYAI-broken.tools: invalid JSON")
      expect(checked.stderr.split("\n").at(-1)).toBe("easyai config: 1 problem(s) found")
      const listed = yield* easyai(["tools", "--external-tools", dir])
      expect(listed.exitCode).toBe(1)
      expect(listed.stdout).toContain("datetime")
      expect(listed.stderr.split("\n").at(-1)).toMatch(/^easyai tools: 1 problem\(s\) in the tools \(see above\): external tools: EASYAI-broken\.tools: invalid JSON/)
    }), { timeout: 90_000 })

  it.live("--check exits 2 on a bad line in the file, whichever program's section it is in", () =>
    Effect.gen(function*() {
      const cwd = withIni("[cli]\nurl = http://127.0.0.1:1\n[MCP]\nsessions = perhaps\n")
      const { exitCode, stderr } = yield* easyai(["config", "--check"], { cwd })
      expect(exitCode).toBe(2)
      expect(stderr).toBe("easyai config: easyai.ini:4: [MCP] sessions: expected on/off, true/false, yes/no or 1/0, got \"perhaps\"")
    }), { timeout: 90_000 })
})

describe("engine settings the runtime cannot honour", () => {
  for (const [key, value, line] of [
    ["rope_scaling", "yarn", "RoPE scaling other than \"none\" is not exposed by node-llama-cpp 3.22"],
    ["split_mode", "row", "split mode \"row\" is not exposed by node-llama-cpp 3.22 (it always splits by layer)"]
  ] as const) {
    it.live(`are refused in one line when the model loads: ${key} = ${value}`, () =>
      Effect.gen(function*() {
        const cwd = withIni(`[ENGINE]\n${key} = ${value}\n`)
        mkdirSync(path.join(cwd, "unused"))
        const { exitCode, stderr } = yield* easyai(["-p", "hi", "-m", modelPath, "--no-tools"], { cwd })
        expect(exitCode).toBe(1)
        expect(stderr).toBe(`easyai: cannot load ${modelPath}: ${line}`)
      }), { timeout: 90_000 })
  }
})
