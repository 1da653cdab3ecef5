import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import * as path from "node:path"
import { ManifestError, type Tool, ToolResult } from "easyai"
import * as SandboxLive from "../../../src/layers/sandbox/SandboxLive.js"
import { loadExternalTools, loadExternalToolsFile } from "../../../src/layers/tools/external/load.js"
import { isManifestFileName, parseManifest } from "../../../src/layers/tools/external/manifest.js"
import { goneSoon } from "../../support/processes.js"
import { tempDir } from "../../support/tempDir.js"

const base = tempDir("easyai-external-")
afterAll(() => rmSync(base, { recursive: true, force: true }))

// ---------------------------------------------------------------------------
// Fixtures

interface Workspace {
  /** The directory scanned for manifests. */
  readonly tools: string
  /** The sandbox root. */
  readonly root: string
  /** Where test programs are written. */
  readonly bin: string
}

const workspace = (): Workspace => {
  const dir = mkdtempSync(path.join(base, "ws-"))
  const ws = { tools: path.join(dir, "tools"), root: path.join(dir, "root"), bin: path.join(dir, "bin") }
  for (const folder of Object.values(ws)) mkdirSync(folder)
  return ws
}

/** Writes an executable shell script; it gets no PATH, so it names programs absolutely. */
const script = (ws: Workspace, name: string, body: string): string => {
  const file = path.join(ws.bin, name)
  writeFileSync(file, `#!/bin/sh\n${body}\n`)
  chmodSync(file, 0o755)
  return file
}

type Entry = Record<string, unknown>

const manifest = (tools: ReadonlyArray<unknown>): string => JSON.stringify({ version: 1, tools }, null, 2)

const tool = (overrides: Entry = {}): Entry => ({
  name: "t",
  description: "A tool.",
  command: "/bin/echo",
  argv: [],
  ...overrides
})

const without = (entry: Entry, field: string): Entry =>
  Object.fromEntries(Object.entries(entry).filter(([key]) => key !== field))

type Isolate = SandboxLive.Options["isolate"]

const withSandbox = <A, E, R>(ws: Workspace, effect: Effect.Effect<A, E, R>, isolate: Isolate = "auto") =>
  effect.pipe(Effect.provide(SandboxLive.layer({ root: ws.root, isolate })))

const loadDir = (ws: Workspace, reserved: ReadonlyArray<string> = [], isolate: Isolate = "auto") =>
  withSandbox(ws, loadExternalTools(ws.tools, reserved), isolate)

/** Loads a manifest holding `entry` alone and returns its tool, on a sandbox isolated as `isolate` says. */
const single = (ws: Workspace, entry: Entry, isolate: Isolate = "auto") =>
  Effect.gen(function*() {
    writeFileSync(path.join(ws.tools, "EASYAI-test.tools"), manifest([entry]))
    const loaded = yield* loadDir(ws, [], isolate)
    expect(loaded.errors).toEqual([])
    expect(loaded.tools).toHaveLength(1)
    return yield* Effect.fromNullable(loaded.tools[0])
  })

/** The result without the `PWD=` line bwrap adds to a tool's environment. */
const withoutPwd = (result: ToolResult): ToolResult =>
  result.isError ? result : ToolResult.ok(result.content.split("\n").filter((line) => !line.startsWith("PWD=")).join("\n"))

const call = (t: Tool.Tool, args: unknown) => t.invoke(typeof args === "string" ? args : JSON.stringify(args))

/** Prints each argument on its own line, in brackets, and leaves a mark that it ran. */
const printArgs = (ws: Workspace) => script(ws, "args.sh", ": > ran\nfor a in \"$@\"; do printf '[%s]\\n' \"$a\"; done")

// ---------------------------------------------------------------------------
// The manifest, as text

const file = "EASYAI-t.tools"
const errorsOf = (text: string, reserved: ReadonlyArray<string> = ["bash"]): ReadonlyArray<string> =>
  Either.match(parseManifest(file, text, reserved), { onLeft: (error) => error.problems, onRight: () => [] })
const toolErrors = (entry: unknown) => errorsOf(manifest([entry]))
const P = `${file}: tool "t": `
const identifierRule = `it must start with a letter and continue with up to 63 letters, digits or "_"`
const typeRule = `use "string", "integer", "number" or "boolean"`
const oneParameter = { type: "object", properties: { count: { type: "integer" } }, required: ["count"] }

describe("manifest file names", () => {
  it("accepts exactly EASYAI-<name>.tools, case-sensitive", () => {
    expect(isManifestFileName("EASYAI-git.tools")).toBe(true)
    expect(isManifestFileName("EASYAI-a.tools")).toBe(true)
    const near = ["EASYAI-.tools", "easyai-git.tools", "EASYAI-git.TOOLS", "EASYAI-git.tools.disabled"]
    for (const name of [...near, "xEASYAI-git.tools", "EASYAI-git"]) {
      expect(isManifestFileName(name), name).toBe(false)
    }
  })
})

describe("manifest rules", () => {
  const cases: ReadonlyArray<readonly [string, unknown, ReadonlyArray<string>]> = [
    ["a tool that is not an object", "x", [`${file}: tools[0] must be an object, got "x"`]],
    ["a missing name", without(tool(), "name"), [`${file}: tools[0]: "name" is missing`]],
    ["a name that is not a string", tool({ name: 42 }), [`${file}: tools[0]: "name" must be a string, got 42`]],
    ["a name starting with a digit", tool({ name: "9lives" }), [
      `${file}: tools[0]: name "9lives" is invalid: ${identifierRule}`
    ]],
    ["a name with a dash", tool({ name: "git-log" }), [
      `${file}: tools[0]: name "git-log" is invalid: ${identifierRule}`
    ]],
    ["a name of 65 characters", tool({ name: "a".repeat(65) }), [
      `${file}: tools[0]: name "${"a".repeat(60)}…" is invalid: ${identifierRule}`
    ]],
    ["a missing description", without(tool(), "description"), [`${P}"description" is missing`]],
    ["a blank description", tool({ description: "  " }), [
      `${P}"description" is empty; tell the model what the tool does and when to use it`
    ]],
    ["a description of 4097 characters", tool({ description: "d".repeat(4097) }), [
      `${P}"description" has 4097 characters, more than 4096`
    ]],
    ["a missing command", without(tool(), "command"), [`${P}"command" is missing`]],
    ["a relative command", tool({ command: "echo" }), [
      `${P}command "echo" is not an absolute path; write the full path (no PATH search happens), such as "/usr/bin/echo"`
    ]],
    ["a missing argv", without(tool(), "argv"), [
      `${P}"argv" is missing; write [] for a command that takes no arguments`
    ]],
    ["an argv that is not an array", tool({ argv: "x" }), [`${P}"argv" must be an array of strings, got "x"`]],
    ["an argv of 257 elements", tool({ argv: Array(257).fill("a") }), [`${P}"argv" has 257 elements, more than 256`]],
    ["an argv element that is not a string", tool({ argv: [5] }), [`${P}argv[0] must be a string, got 5`]],
    ["an argv element over 4096 bytes", tool({ argv: ["é".repeat(2049)] }), [
      `${P}argv[0] has 4098 bytes, more than 4096`
    ]],
    ["a placeholder inside other text", tool({
      argv: ["a{count}b"],
      parameters: oneParameter
    }), [`${P}argv[0] "a{count}b" embeds a placeholder; a placeholder must be a whole element, such as "{count}"`]],
    ["braces in a literal", tool({ argv: ["{}"] }), [
      `${P}argv[0] "{}" contains "{" or "}"; a literal element cannot contain braces`
    ]],
    ["a placeholder naming an undeclared parameter", tool({ argv: ["{nope}"], parameters: oneParameter }), [
      `${P}argv[0] "{nope}" names no declared parameter (declared: count)`
    ]],
    ["a placeholder in a tool without parameters", tool({ argv: ["{nope}"] }), [
      `${P}argv[0] "{nope}" names no declared parameter (this tool declares no parameters)`
    ]],
    ["parameters that are not an object", tool({ parameters: [] }), [
      `${P}"parameters" must be an object such as {"type": "object", "properties": {}}, got an array`
    ]],
    ["parameters of another type", tool({ parameters: { type: "array", properties: {} } }), [
      `${P}"parameters.type" must be "object", got "array"`
    ]],
    ["33 parameters", tool({
      parameters: {
        type: "object",
        properties: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`p${i}`, { type: "string" }]))
      }
    }), [`${P}"parameters.properties" declares 33 parameters, more than 32`]],
    ["a parameter of an unsupported type", tool({
      parameters: { type: "object", properties: { x: { type: "array" } } }
    }), [`${P}parameter "x" has type "array"; ${typeRule}`]],
    ["a parameter without a type", tool({ parameters: { type: "object", properties: { x: {} } } }), [
      `${P}parameter "x" has no "type"; ${typeRule}`
    ]],
    ["a parameter whose description is not a string", tool({
      parameters: { type: "object", properties: { x: { type: "string", description: 7 } } }
    }), [`${P}parameter "x": "description" must be a string, got 7`]],
    ["a parameter of a null type", tool({
      parameters: { type: "object", properties: { x: { type: null } } }
    }), [`${P}parameter "x" has type null; ${typeRule}`]],
    ["a parameter that is not an object", tool({ parameters: { type: "object", properties: { x: "string" } } }), [
      `${P}parameter "x" must be an object such as {"type": "string"}, got "string"`
    ]],
    ["a parameter with an invalid name", tool({
      parameters: { type: "object", properties: { "2x": { type: "string" } } }
    }), [
      `${P}parameter "2x" has an invalid name: it must start with a letter and continue with up to 63 letters, digits, "_" or "-"`
    ]],
    ["a required name that is not declared", tool({
      argv: ["{count}"],
      parameters: { ...oneParameter, required: ["count", "y"] }
    }), [`${P}"parameters.required" names "y", which is not a declared parameter`]],
    ["required that is not an array", tool({ parameters: { ...oneParameter, required: "count" } }), [
      `${P}"parameters.required" must be an array of parameter names, got "count"`
    ]],
    ["a timeout that is not a number", tool({ timeout_ms: "5000" }), [
      `${P}"timeout_ms" must be a whole number of milliseconds, got "5000"`
    ]],
    ["an output cap that is not whole", tool({ max_output_bytes: 1.5 }), [
      `${P}"max_output_bytes" must be a whole number of bytes, got 1.5`
    ]],
    ["a relative cwd", tool({ cwd: "work" }), [`${P}cwd "work" must be an absolute path or "$SANDBOX"`]],
    ["17 passthrough variables", tool({ env_passthrough: Array.from({ length: 17 }, (_, i) => `V${i}`) }), [
      `${P}"env_passthrough" has 17 names, more than 16`
    ]],
    ["an invalid variable name", tool({ env_passthrough: ["HOME", "1X"] }), [
      `${P}env_passthrough[1] "1X" is not a valid variable name: ${identifierRule}`
    ]],
    ["an unknown stderr mode", tool({ stderr: "both" }), [`${P}"stderr" must be "merge" or "discard", got "both"`]],
    ["a non-boolean exit flag", tool({ treat_nonzero_exit_as_error: "no" }), [
      `${P}"treat_nonzero_exit_as_error" must be true or false, got "no"`
    ]]
  ]
  for (const [title, entry, expected] of cases) {
    it(`rejects ${title}`, () => {
      expect(toolErrors(entry)).toEqual(expected)
    })
  }

  it("tells how to split an embedded placeholder", () => {
    const text = manifest([tool({
      name: "git_log",
      command: "/usr/bin/git",
      argv: ["log", "--oneline", "--max={count}"],
      parameters: oneParameter
    })])
    expect(parseManifest("EASYAI-git.tools", text, [])).toEqual(Either.left(new ManifestError({
      file: "EASYAI-git.tools",
      problems: [
        `EASYAI-git.tools: tool "git_log": argv[2] "--max={count}" embeds a placeholder; split it into two elements: "--max", "{count}"`
      ]
    })))
  })

  it("checks the top level", () => {
    expect(errorsOf(JSON.stringify({ tools: [tool()] }))).toEqual([`${file}: "version" is missing; write "version": 1`])
    expect(errorsOf(JSON.stringify({ version: 2, tools: [tool()] }))).toEqual([`${file}: "version" must be 1, got 2`])
    expect(errorsOf(JSON.stringify({ version: 1 }))).toEqual([
      `${file}: "tools" is missing; declare the tools as an array`
    ])
    expect(errorsOf(JSON.stringify({ version: 1, tools: {} }))).toEqual([
      `${file}: "tools" must be an array, got an object`
    ])
    expect(errorsOf(manifest([]))).toEqual([`${file}: "tools" is empty; declare at least one tool`])
    const many = Array.from({ length: 129 }, (_, i) => tool({ name: `t${i}` }))
    expect(errorsOf(manifest(many))).toEqual([
      `${file}: "tools" has 129 entries, more than 128; split them over several files`
    ])
    expect(errorsOf("[]")).toEqual([
      `${file}: the manifest must be a JSON object such as {"version": 1, "tools": [...]}`
    ])
  })

  it("locates a JSON syntax error by line and column", () => {
    const [error, ...rest] = errorsOf("{\n  \"version\": 1,\n}")
    expect(rest).toEqual([])
    expect(error).toBe(`${file}: invalid JSON at line 3, column 1: Expected double-quoted property name`)
    expect(errorsOf("")).toEqual([`${file}: invalid JSON: Unexpected end of JSON input`])
  })

  it("rejects a manifest over 1 MiB and accepts one of exactly 1 MiB", () => {
    expect(errorsOf(" ".repeat(1_048_577))).toEqual([`${file}: manifest exceeds 1048576 bytes (it has 1048577)`])
    const text = manifest([tool()])
    const exact = text + " ".repeat(1_048_576 - text.length)
    expect(Either.isRight(parseManifest(file, exact, []))).toBe(true)
  })

  it("rejects a name declared twice or reserved by a built-in", () => {
    expect(errorsOf(manifest([tool(), tool({ name: "u" }), tool()]))).toEqual([
      `${file}: tool "t" is declared twice, at tools[0] and tools[2]`
    ])
    expect(errorsOf(manifest([tool({ name: "bash" })]), ["bash", "fs_read"])).toEqual([
      `${file}: tool "bash" collides with a built-in tool of the same name; choose another name`
    ])
  })

  it("reports every problem of a file at once", () => {
    expect(errorsOf(manifest([tool({ cwd: "work", stderr: 1 }), tool({ name: "u", command: "u" })]))).toEqual([
      `${P}cwd "work" must be an absolute path or "$SANDBOX"`,
      `${P}"stderr" must be "merge" or "discard", got 1`,
      `${file}: tool "u": command "u" is not an absolute path; write the full path (no PATH search happens), such as "/usr/bin/u"`
    ])
  })

  it("accepts every limit at its edge", () => {
    const edge = tool({
      name: "a".repeat(64),
      description: "d".repeat(4096),
      argv: [...Array(254).fill("x"), "é".repeat(2048), "{p0}"],
      parameters: {
        type: "object",
        properties: Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`p${i}`, { type: "string" }]))
      },
      env_passthrough: Array.from({ length: 16 }, (_, i) => `V${i}`),
      timeout_ms: 300_000,
      max_output_bytes: 4_194_304
    })
    const others = Array.from({ length: 127 }, (_, i) => tool({ name: `t${i}` }))
    const parsed = parseManifest(file, manifest([edge, ...others]), [])
    expect(Either.isRight(parsed)).toBe(true)
  })

  it("applies the defaults", () => {
    expect(parseManifest(file, manifest([tool()]), [])).toEqual(Either.right({
      tools: [{
        file,
        name: "t",
        description: "A tool.",
        command: "/bin/echo",
        argv: [],
        parameters: [],
        timeoutMillis: 10_000,
        maxOutputBytes: 65_536,
        cwd: "$SANDBOX",
        envPassthrough: [],
        stderr: "merge",
        treatNonzeroExitAsError: true
      }],
      warnings: []
    }))
  })

  it("reads every field, clamps the limits and warns about what deserves a second look", () => {
    const text = JSON.stringify({
      $schema: "x",
      version: 1,
      tools: [{
        name: "run_script",
        description: "Runs a script.",
        command: "/bin/sh",
        argv: ["-c", "{script}", "--", "{verbose}"],
        parameters: {
          type: "object",
          properties: {
            script: { type: "string", description: "The script." },
            verbose: { type: "boolean" },
            unused: { type: "integer", minimum: 1 }
          },
          required: ["script"]
        },
        timeout_ms: 5,
        max_output_bytes: 99_999_999,
        cwd: "/srv",
        env_passthrough: ["LD_PRELOAD", "HOME"],
        stderr: "discard",
        treat_nonzero_exit_as_error: false,
        comment: "x"
      }, tool({ timeout_ms: 999_999, max_output_bytes: 10 })]
    })
    const T = `${file}: tool "run_script": `
    expect(parseManifest(file, text, [])).toEqual(Either.right({
      tools: [{
        file,
        name: "run_script",
        description: "Runs a script.",
        command: "/bin/sh",
        argv: [
          { _tag: "Literal", text: "-c" },
          { _tag: "Placeholder", parameter: "script" },
          { _tag: "Literal", text: "--" },
          { _tag: "Placeholder", parameter: "verbose" }
        ],
        parameters: [
          { name: "script", type: "string", description: "The script.", required: true },
          { name: "verbose", type: "boolean", description: undefined, required: false },
          { name: "unused", type: "integer", description: undefined, required: false }
        ],
        timeoutMillis: 100,
        maxOutputBytes: 4_194_304,
        cwd: "/srv",
        envPassthrough: ["LD_PRELOAD", "HOME"],
        stderr: "discard",
        treatNonzeroExitAsError: false
      }, {
        file,
        name: "t",
        description: "A tool.",
        command: "/bin/echo",
        argv: [],
        parameters: [],
        timeoutMillis: 300_000,
        maxOutputBytes: 1024,
        cwd: "$SANDBOX",
        envPassthrough: [],
        stderr: "merge",
        treatNonzeroExitAsError: true
      }],
      warnings: [
        `${file}: unknown field "$schema" is ignored`,
        `${T}unknown field "comment" is ignored`,
        `${T}parameter "unused": unknown field "minimum" is ignored`,
        `${T}"timeout_ms" 5 is below 100; using 100`,
        `${T}"max_output_bytes" 99999999 is above 4194304; using 4194304`,
        `${T}env_passthrough lets "LD_PRELOAD" through, which steers the dynamic linker; remove it unless the command really needs it`,
        `${T}runs the shell "/bin/sh" with -c and a placeholder, which hands the model a shell; declare focused tools instead`,
        `${T}parameter "unused" is declared but not used in argv`,
        `${P}"timeout_ms" 999999 is above 300000; using 300000`,
        `${P}"max_output_bytes" 10 is below 1024; using 1024`
      ]
    }))
  })
})

// ---------------------------------------------------------------------------
// Loading a directory

describe("loading a directory", () => {
  it.live("isolates faults per file and ignores what is not a manifest", () => {
    const ws = workspace()
    writeFileSync(path.join(ws.tools, "EASYAI-a.tools"), manifest([tool({ name: "alpha" })]))
    writeFileSync(path.join(ws.tools, "EASYAI-b.tools"), "{ \"version\": 1, ")
    writeFileSync(
      path.join(ws.tools, "EASYAI-c.tools"),
      manifest([tool({ name: "gamma", command: path.join(ws.bin, "missing") })])
    )
    writeFileSync(path.join(ws.tools, "EASYAI-d.tools"), manifest([tool({ name: "delta" }), tool({ name: "epsilon" })]))
    writeFileSync(path.join(ws.tools, "EASYAI-e.tools.disabled"), "not even JSON")
    writeFileSync(path.join(ws.tools, "easyai-f.tools"), manifest([tool({ name: "phi" })]))
    writeFileSync(path.join(ws.tools, "notes.txt"), "hello")
    mkdirSync(path.join(ws.tools, "archive"))
    writeFileSync(path.join(ws.tools, "archive", "EASYAI-g.tools"), manifest([tool({ name: "gamma2" })]))
    return Effect.gen(function*() {
      const loaded = yield* loadDir(ws)
      expect(loaded.tools.map((t) => t.spec.name)).toEqual(["alpha", "delta", "epsilon"])
      expect(loaded.errors).toEqual([
        "EASYAI-b.tools: invalid JSON at line 1, column 17: Expected double-quoted property name",
        `EASYAI-c.tools: tool "gamma": command ${JSON.stringify(path.join(ws.bin, "missing"))} does not exist`
      ])
      expect(loaded.warnings).toEqual([
        `ignoring "easyai-f.tools" in ${JSON.stringify(ws.tools)}: manifest files must be named exactly EASYAI-<name>.tools`
      ])
    })
  })

  it.live("checks each command on disk", () => {
    const ws = workspace()
    const plain = path.join(ws.bin, "plain.sh")
    writeFileSync(plain, "#!/bin/sh\n")
    chmodSync(plain, 0o644)
    const open = script(ws, "open.sh", "echo hi")
    chmodSync(open, 0o777)
    writeFileSync(path.join(ws.tools, "EASYAI-bad.tools"), manifest([
      tool({ name: "not_executable", command: plain }),
      tool({ name: "directory", command: ws.bin }),
      tool({ name: "missing", command: "/nonexistent/program" })
    ]))
    writeFileSync(path.join(ws.tools, "EASYAI-good.tools"), manifest([
      tool({ name: "open", command: open, cwd: "/nonexistent/dir" })
    ]))
    return Effect.gen(function*() {
      const loaded = yield* loadDir(ws)
      expect(loaded.errors).toEqual([
        `EASYAI-bad.tools: tool "not_executable": command ${JSON.stringify(plain)} is not executable`,
        `EASYAI-bad.tools: tool "directory": command ${JSON.stringify(ws.bin)} is not a regular file`,
        `EASYAI-bad.tools: tool "missing": command "/nonexistent/program" does not exist`
      ])
      expect(loaded.tools.map((t) => t.spec.name)).toEqual(["open"])
      expect(loaded.warnings).toEqual([
        `EASYAI-good.tools: tool "open": command ${JSON.stringify(open)} is writable by every user; anyone on the host can replace it`,
        `EASYAI-good.tools: tool "open": cwd "/nonexistent/dir" is not a directory; calls will fail until it is one`
      ])
    })
  })

  it.live("refuses names taken by built-ins or by an earlier file, skipping the whole later file", () => {
    const ws = workspace()
    writeFileSync(path.join(ws.tools, "EASYAI-a.tools"), manifest([tool({ name: "shared", argv: ["from-a"] })]))
    writeFileSync(path.join(ws.tools, "EASYAI-b.tools"), manifest([tool({ name: "other" }), tool({ name: "shared" })]))
    writeFileSync(path.join(ws.tools, "EASYAI-c.tools"), manifest([tool({ name: "fs_read" }), tool({ name: "fine" })]))
    return Effect.gen(function*() {
      const loaded = yield* loadDir(ws, ["fs_read", "bash"])
      expect(loaded.tools.map((t) => t.spec.name)).toEqual(["shared"])
      expect(loaded.errors).toEqual([
        `EASYAI-b.tools: tool "shared" is already declared in EASYAI-a.tools; choose another name`,
        `EASYAI-c.tools: tool "fs_read" collides with a built-in tool of the same name; choose another name`
      ])
      const shared = yield* Effect.fromNullable(loaded.tools[0])
      expect(yield* call(shared, {})).toEqual(ToolResult.ok("from-a\n"))
    })
  })

  it.live("refuses a manifest that is not a regular file or is over 1 MiB, before reading it", () => {
    const ws = workspace()
    mkdirSync(path.join(ws.tools, "EASYAI-dir.tools"))
    symlinkSync("/dev/zero", path.join(ws.tools, "EASYAI-zero.tools"))
    writeFileSync(path.join(ws.tools, "EASYAI-big.tools"), " ".repeat(1_048_577))
    writeFileSync(path.join(ws.tools, "EASYAI-latin1.tools"), Buffer.from([0x7b, 0xe9, 0x7d]))
    const text = manifest([tool({ name: "exact" })])
    writeFileSync(path.join(ws.tools, "EASYAI-exact.tools"), text + " ".repeat(1_048_576 - text.length))
    return Effect.gen(function*() {
      const loaded = yield* loadDir(ws)
      expect(loaded.tools.map((t) => t.spec.name)).toEqual(["exact"])
      expect(loaded.errors).toEqual([
        "EASYAI-big.tools: manifest exceeds 1048576 bytes (it has 1048577)",
        "EASYAI-dir.tools: manifest is not a regular file",
        "EASYAI-latin1.tools: manifest is not valid UTF-8",
        "EASYAI-zero.tools: manifest is not a regular file"
      ])
    })
  })

  it.live("warns about a manifest anyone can write", () => {
    const ws = workspace()
    const target = path.join(ws.tools, "EASYAI-open.tools")
    writeFileSync(target, manifest([tool()]))
    chmodSync(target, 0o666)
    return Effect.gen(function*() {
      const loaded = yield* loadDir(ws)
      expect(loaded.tools).toHaveLength(1)
      expect(loaded.warnings).toEqual([
        "EASYAI-open.tools: the manifest is writable by every user; anyone on the host can add tools to it"
      ])
    })
  })

  it.live("reports a missing directory, or a file in its place, as one error", () => {
    const ws = workspace()
    const missing = path.join(ws.tools, "nope")
    const notDirectory = path.join(ws.tools, "file")
    writeFileSync(notDirectory, "")
    return Effect.gen(function*() {
      expect(yield* withSandbox(ws, loadExternalTools(missing, []))).toEqual({
        tools: [],
        errors: [`external tools directory ${JSON.stringify(missing)} does not exist`],
        warnings: []
      })
      expect(yield* withSandbox(ws, loadExternalTools(notDirectory, []))).toEqual({
        tools: [],
        errors: [`external tools directory ${JSON.stringify(notDirectory)} is not a directory`],
        warnings: []
      })
      expect(yield* loadDir(ws)).toEqual({ tools: [], errors: [], warnings: [] })
    })
  })

  it.live("loads a single file whatever its name", () => {
    const ws = workspace()
    const single = path.join(ws.bin, "mytools.json")
    writeFileSync(single, manifest([tool({ name: "one" }), tool({ name: "two", cwd: "here" })]))
    return Effect.gen(function*() {
      const loaded = yield* withSandbox(ws, loadExternalToolsFile(single, []))
      expect(loaded.tools).toEqual([])
      expect(loaded.errors).toEqual([`mytools.json: tool "two": cwd "here" must be an absolute path or "$SANDBOX"`])
    })
  })
})

// ---------------------------------------------------------------------------
// Calling a tool

describe("calling an external tool", () => {
  const typed = (command: string) =>
    tool({
      command,
      argv: ["--", "{text}", "{count}", "{ratio}", "{flag}", "{note}"],
      parameters: {
        type: "object",
        properties: {
          text: { type: "string", description: "Any text." },
          count: { type: "integer" },
          ratio: { type: "number" },
          flag: { type: "boolean" },
          note: { type: "string" }
        },
        required: ["text", "count"]
      },
      timeout_ms: 5000
    })

  it.live("shows the model a JSON Schema of the declared parameters", () => {
    const ws = workspace()
    return Effect.gen(function*() {
      const t = yield* single(ws, typed(printArgs(ws)))
      expect(t.spec.name).toBe("t")
      expect(t.spec.description).toBe("A tool.")
      expect(t.spec.parameters).toEqual({
        type: "object",
        properties: {
          text: { type: "string", description: "Any text." },
          count: { type: "integer" },
          ratio: { type: "number" },
          flag: { type: "boolean" },
          note: { type: "string" }
        },
        required: ["text", "count"]
      })
      const bare = yield* single(workspace(), tool())
      expect(bare.spec.parameters).toEqual({ type: "object", properties: {} })
    })
  })

  it.live("passes each value as exactly one argv element, with no shell in between", () => {
    const ws = workspace()
    return Effect.gen(function*() {
      const t = yield* single(ws, typed(printArgs(ws)))
      for (const payload of ["; rm -rf /", "$(touch pwned)", "`touch pwned`", "-n", "--help", "a b  c", "'\"|&>x"]) {
        const result = yield* call(t, { text: payload, count: -3, ratio: 0.5, flag: false })
        expect(result).toEqual(ToolResult.ok(`[--]\n[${payload}]\n[-3]\n[0.5]\n[false]\n[]\n`))
      }
      expect(yield* call(t, { text: "x", count: 7, ratio: 1e21, flag: true, note: "n" })).toEqual(
        ToolResult.ok("[--]\n[x]\n[7]\n[1e+21]\n[true]\n[n]\n")
      )
      expect(existsSync(path.join(ws.root, "pwned"))).toBe(false)
      expect(existsSync(path.join(ws.root, "x"))).toBe(false)
    })
  })

  it.live("rejects arguments of the wrong type before running anything", () => {
    const ws = workspace()
    const usage = [
      "Parameters: text (string, required), count (integer, required), ratio (number, optional), " +
      "flag (boolean, optional), note (string, optional)",
      `Example call: t({"text":"<text>","count":1})`
    ].join("\n")
    const rejected = (reason: string) => ToolResult.error(`t: invalid arguments: ${reason}\n${usage}`)
    return Effect.gen(function*() {
      const t = yield* single(ws, typed(printArgs(ws)))
      expect(yield* call(t, { text: "x", count: 1, flag: "true" })).toEqual(
        rejected(`flag: expected boolean, got string "true"`)
      )
      expect(yield* call(t, { text: "x", count: 1.5 })).toEqual(rejected("count: expected integer, got number 1.5"))
      expect(yield* call(t, { text: "x", count: "3" })).toEqual(rejected(`count: expected integer, got string "3"`))
      expect(yield* call(t, "{\"text\": \"x\", \"count\": 1, \"ratio\": 1e999}")).toEqual(
        rejected("ratio: must be a finite number")
      )
      expect(yield* call(t, { text: "x", count: 1, ratio: "NaN" })).toEqual(
        rejected(`ratio: expected number, got string "NaN"`)
      )
      expect(yield* call(t, { count: 1, note: null })).toEqual(
        rejected("text: is missing; note: expected string, got null")
      )
      expect(yield* call(t, { text: "a\u0000b", count: 1 })).toEqual(
        rejected("text: contains a NUL byte, which cannot be passed to a program")
      )
      const unparsable = yield* call(t, "{not json")
      expect(unparsable.isError).toBe(true)
      expect(unparsable.content.startsWith("t: invalid arguments: ")).toBe(true)
      expect(existsSync(path.join(ws.root, "ran"))).toBe(false)
      expect(yield* call(t, { text: "x", count: 2, extra: "ignored", flag: true })).toEqual(
        ToolResult.ok("[--]\n[x]\n[2]\n[]\n[true]\n[]\n")
      )
      expect(existsSync(path.join(ws.root, "ran"))).toBe(true)
    })
  })

  it.live("gives the command only the passthrough variables set at call time (and PWD under bubblewrap)", () => {
    const ws = workspace()
    const saved = process.env["EXT_TEST_TOKEN"]
    const restore = Effect.sync(() => {
      if (saved === undefined) delete process.env["EXT_TEST_TOKEN"]
      else process.env["EXT_TEST_TOKEN"] = saved
    })
    return Effect.gen(function*() {
      const loaded = yield* single(
        ws,
        tool({ command: "/usr/bin/env", env_passthrough: ["EXT_TEST_TOKEN", "EXT_TEST_UNSET"] })
      )
      // bwrap sets PWD to the working directory it enters; nothing else is added.
      const t = { ...loaded, invoke: (raw: string) => Effect.map(loaded.invoke(raw), withoutPwd) }
      delete process.env["EXT_TEST_UNSET"]
      process.env["EXT_TEST_TOKEN"] = "first"
      expect(yield* call(t, {})).toEqual(ToolResult.ok("EXT_TEST_TOKEN=first\n"))
      process.env["EXT_TEST_TOKEN"] = "rotated"
      expect(yield* call(t, {})).toEqual(ToolResult.ok("EXT_TEST_TOKEN=rotated\n"))
      process.env["EXT_TEST_TOKEN"] = "x".repeat(4097)
      expect(yield* call(t, {})).toEqual(ToolResult.ok(""))
      delete process.env["EXT_TEST_TOKEN"]
      expect(yield* call(t, {})).toEqual(ToolResult.ok(""))
    }).pipe(Effect.ensuring(restore))
  })

  it.live("closes stdin", () => {
    const ws = workspace()
    return Effect.gen(function*() {
      const t = yield* single(ws, tool({ command: "/bin/cat", timeout_ms: 5000 }))
      expect(yield* call(t, {})).toEqual(ToolResult.ok(""))
    })
  })

  it.live("kills a command that ignores SIGTERM, and its grandchild, at the timeout (isolate off: the pid is the host's)", () => {
    const ws = workspace()
    const stubborn = script(
      ws,
      "stubborn.sh",
      ["trap '' TERM", "echo started", "/bin/sleep 30 &", "echo $! > grandchild.pid", "wait"].join("\n")
    )
    return Effect.gen(function*() {
      const t = yield* single(ws, tool({ command: stubborn, timeout_ms: 200 }), "off")
      const startedAt = Date.now()
      expect(yield* call(t, {})).toEqual(
        ToolResult.error("t: timed out after 200 ms; the process and its children were stopped\nstarted\n")
      )
      // 200 ms, then the 1 s grace the TERM-ignoring shell sits out, then SIGKILL.
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1000)
      expect(Date.now() - startedAt).toBeLessThan(5000)
      const grandchild = Number(readFileSync(path.join(ws.root, "grandchild.pid"), "utf8"))
      expect(grandchild).toBeGreaterThan(0)
      expect(yield* goneSoon(grandchild)).toBe(true)
    })
  })

  it.live("caps the output, notes the truncation, and keeps draining", () => {
    const ws = workspace()
    const chatty = script(ws, "chatty.sh", "/usr/bin/head -c \"$1\" /dev/zero | /usr/bin/tr '\\0' x")
    return Effect.gen(function*() {
      const t = yield* single(ws, tool({
        command: chatty,
        argv: ["{bytes}"],
        parameters: { type: "object", properties: { bytes: { type: "integer" } }, required: ["bytes"] },
        max_output_bytes: 1024,
        timeout_ms: 10_000
      }))
      expect(yield* call(t, { bytes: 5000 })).toEqual(ToolResult.ok(`${"x".repeat(1024)}\n[output truncated: ${5000 - 1024} more bytes were dropped]`))
      expect(yield* call(t, { bytes: 1024 })).toEqual(ToolResult.ok("x".repeat(1024)))
      const flood = yield* call(t, { bytes: 3_000_000 })
      expect(flood).toEqual(ToolResult.ok(`${"x".repeat(1024)}\n[output truncated: ${3_000_000 - 1024} more bytes were dropped]`))
    })
  })

  it.live("reports a non-zero exit as an error unless told it is informational", () => {
    const ws = workspace()
    const failing = script(ws, "failing.sh", "echo partial\nexit 3")
    const quiet = script(ws, "quiet.sh", "exit 1")
    const killed = script(ws, "killed.sh", "kill -9 $$")
    return Effect.gen(function*() {
      writeFileSync(path.join(ws.tools, "EASYAI-exit.tools"), manifest([
        tool({ name: "strict", command: failing }),
        tool({ name: "lenient", command: failing, treat_nonzero_exit_as_error: false }),
        tool({ name: "silent", command: quiet }),
        tool({ name: "killed", command: killed, treat_nonzero_exit_as_error: false })
      ]))
      const loaded = yield* loadDir(ws)
      expect(loaded.errors).toEqual([])
      const results = yield* Effect.forEach(loaded.tools, (t) => call(t, {}))
      expect(results).toEqual([
        ToolResult.error("strict: exit code 3\npartial\n"),
        ToolResult.ok("partial\n"),
        ToolResult.error("silent: exit code 1"),
        ToolResult.error("killed: killed by SIGKILL")
      ])
    })
  })

  it.live("merges stderr into the output or discards it", () => {
    const ws = workspace()
    const both = script(ws, "both.sh", "echo to-stdout\necho to-stderr >&2")
    return Effect.gen(function*() {
      writeFileSync(path.join(ws.tools, "EASYAI-err.tools"), manifest([
        tool({ name: "merged", command: both }),
        tool({ name: "discarded", command: both, stderr: "discard" })
      ]))
      const loaded = yield* loadDir(ws)
      const [merged, discarded] = yield* Effect.forEach(loaded.tools, (t) => call(t, {}))
      // Two pipes: the order in which their bytes arrive is up to the scheduler.
      expect(merged?.isError).toBe(false)
      expect(merged?.content.split("\n").sort()).toEqual(["", "to-stderr", "to-stdout"])
      expect(discarded).toEqual(ToolResult.ok("to-stdout\n"))
    })
  })

  it.live("runs in the sandbox root by default, or in the declared directory", () => {
    const ws = workspace()
    return Effect.gen(function*() {
      writeFileSync(path.join(ws.tools, "EASYAI-cwd.tools"), manifest([
        tool({ name: "here", command: "/bin/pwd" }),
        tool({ name: "there", command: "/bin/pwd", cwd: ws.bin })
      ]))
      const loaded = yield* loadDir(ws)
      expect(yield* Effect.forEach(loaded.tools, (t) => call(t, {}))).toEqual([
        ToolResult.ok(`${realpathSync(ws.root)}\n`),
        ToolResult.ok(`${ws.bin}\n`)
      ])
    })
  })

  it.live("reports a command removed after loading as a failed execve", () => {
    const ws = workspace()
    const doomed = script(ws, "doomed.sh", "echo hi")
    return Effect.gen(function*() {
      const t = yield* single(ws, tool({ command: doomed }))
      rmSync(doomed)
      expect(yield* call(t, {})).toEqual(ToolResult.error(`t: external_tool: execve failed: spawn ${doomed} ENOENT`))
    })
  })
})
