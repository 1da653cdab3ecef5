import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Either, Exit } from "effect"
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { type Tool, ToolResult } from "easyai"
import * as SandboxLive from "../../../src/layers/sandbox/SandboxLive.js"
import { agentsFileCap, AgentsFileError, loadAgentsFile } from "../../../src/layers/workspace/agentsFile.js"
import { parseSkillFile, skillLimits, type SkillsMode } from "../../../src/layers/workspace/skillFile.js"
import { loadSkills } from "../../../src/layers/workspace/skills.js"
import type { SkillsOptions } from "../../../src/layers/workspace/skillTools.js"
import { tempDir } from "../../support/tempDir.js"

const base = tempDir("easyai-workspace-")
afterAll(() => rmSync(base, { recursive: true, force: true }))

// ---------------------------------------------------------------------------
// Fixtures

interface Workspace {
  readonly dir: string
  /** The sandbox root. */
  readonly root: string
  /** Two skills directories, the second overriding the first. */
  readonly skillsA: string
  readonly skillsB: string
}

const workspace = (): Workspace => {
  const dir = mkdtempSync(path.join(base, "ws-"))
  const ws = {
    dir,
    root: path.join(dir, "root"),
    skillsA: path.join(dir, "skills-a"),
    skillsB: path.join(dir, "skills-b")
  }
  for (const folder of [ws.root, ws.skillsA, ws.skillsB]) mkdirSync(folder)
  return ws
}

const skillMd = (name: string, description: string, body: string): string =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`

/** Writes `<dir>/<folder>/SKILL.md` (and `tools.json` when given); returns the folder. */
const writeSkill = (dir: string, folder: string, text: string, tools?: unknown): string => {
  const skill = path.join(dir, folder)
  mkdirSync(skill, { recursive: true })
  writeFileSync(path.join(skill, "SKILL.md"), text)
  if (tools !== undefined) {
    writeFileSync(path.join(skill, "tools.json"), typeof tools === "string" ? tools : JSON.stringify(tools))
  }
  return skill
}

const load = (ws: Workspace, dirs: ReadonlyArray<string>, mode: SkillsMode, options?: SkillsOptions) =>
  loadSkills(dirs, mode, options).pipe(Effect.provide(SandboxLive.layer({ root: ws.root })))

const call = (t: Tool.Tool | undefined, args: unknown) =>
  Effect.flatMap(Effect.fromNullable(t), (found) => found.invoke(JSON.stringify(args)))

const byName = (tools: ReadonlyArray<Tool.Tool>, name: string) => tools.find((t) => t.spec.name === name)

// ---------------------------------------------------------------------------
// AGENTS.md

describe("AGENTS.md", () => {
  it.effect("is read trimmed from the workspace directory", () =>
    Effect.gen(function*() {
      const ws = workspace()
      writeFileSync(path.join(ws.dir, "AGENTS.md"), "\n\n# House rules\nBe brief.\n\n  ")
      expect(yield* loadAgentsFile(ws.dir)).toBe("# House rules\nBe brief.")
    }))

  it.effect("is nothing when absent or blank", () =>
    Effect.gen(function*() {
      const ws = workspace()
      expect(yield* loadAgentsFile(ws.dir)).toBeUndefined()
      expect(yield* loadAgentsFile(path.join(ws.dir, "no-such-dir"))).toBeUndefined()
      writeFileSync(path.join(ws.dir, "AGENTS.md"), " \n\t\n")
      expect(yield* loadAgentsFile(ws.dir)).toBeUndefined()
    }))

  it.effect("removes control characters but keeps newlines and tabs", () =>
    Effect.gen(function*() {
      const ws = workspace()
      writeFileSync(path.join(ws.dir, "AGENTS.md"), "\uFEFF\u001b[31mred\u001b[0m\r\nline\u0007\ttab\u0000\u007f\n")
      expect(yield* loadAgentsFile(ws.dir)).toBe("[31mred[0m\nline\ttab")
    }))

  it.effect("caps an oversize file at a character boundary and says so", () =>
    Effect.gen(function*() {
      const ws = workspace()
      const note = `\n\n[AGENTS.md truncated: only its first ${agentsFileCap} bytes are shown]`
      // "é" is two bytes: the cap falls in the middle of a character.
      writeFileSync(path.join(ws.dir, "AGENTS.md"), `x${"é".repeat(agentsFileCap)}`)
      const text = yield* Effect.flatMap(loadAgentsFile(ws.dir), Effect.fromNullable)
      expect(text).toBe(`x${"é".repeat((agentsFileCap - 2) / 2)}${note}`)
      // Exactly at the cap: kept whole, no note.
      writeFileSync(path.join(ws.dir, "AGENTS.md"), "a".repeat(agentsFileCap))
      expect(yield* loadAgentsFile(ws.dir)).toBe("a".repeat(agentsFileCap))
      // Far beyond what is read at all.
      writeFileSync(path.join(ws.dir, "AGENTS.md"), "b".repeat(3 * 1024 * 1024))
      expect(yield* loadAgentsFile(ws.dir)).toBe(`${"b".repeat(agentsFileCap)}${note}`)
    }))

  it.effect("fails with AgentsFileError when the file cannot be used", () =>
    Effect.gen(function*() {
      const ws = workspace()
      const file = path.join(ws.dir, "AGENTS.md")
      mkdirSync(file)
      expect(yield* Effect.exit(loadAgentsFile(ws.dir))).toEqual(
        Exit.fail(new AgentsFileError({ path: file, reason: "NotAFile", detail: "is not a regular file" }))
      )
      rmSync(file, { recursive: true })
      writeFileSync(file, Buffer.from([0x68, 0xe9, 0x21]))
      const error = yield* Effect.flip(loadAgentsFile(ws.dir))
      expect(error.reason).toBe("NotUtf8")
      expect(error.message).toBe(`${file}: is not valid UTF-8`)
    }))
})

// ---------------------------------------------------------------------------
// SKILL.md

describe("SKILL.md frontmatter", () => {
  const label = "/s/notes/SKILL.md"
  const errorsOf = (text: string, folder = "notes") =>
    Either.match(parseSkillFile(label, text, folder), { onLeft: (error) => error.problems, onRight: () => [] })

  it("parses name, description and the trimmed body", () => {
    const text = "---\r\nname: notes\r\ndescription: >\r\n  Take notes\r\n  when asked.\r\n---\r\n\r\n# Notes\r\nUse the notes tool.\r\n"
    expect(parseSkillFile(label, text, "notes")).toEqual(Either.right({
      name: "notes",
      description: "Take notes when asked.",
      body: "# Notes\nUse the notes tool."
    }))
  })

  it("reports each problem precisely", () => {
    const cases: ReadonlyArray<readonly [string, string, ReadonlyArray<string>]> = [
      ["no frontmatter", "# Notes\nbody", [
        `${label}: no frontmatter: the file must start with a line "---", then YAML with "name" and "description", then a line "---", then the instructions`
      ]],
      ["an unclosed frontmatter", "---\nname: notes\ndescription: d\nbody", [
        `${label}: the frontmatter is not closed: add a line "---" after its YAML`
      ]],
      ["invalid YAML", "---\nname: notes\ndescription: a: b\n---\nbody", [
        `${label}: invalid YAML in the frontmatter at line 3, column 14: Nested mappings are not allowed in compact mappings`
      ]],
      ["a duplicate key", "---\nname: notes\nname: notes\ndescription: d\n---\nbody", [
        `${label}: invalid YAML in the frontmatter at line 3, column 1: Map keys must be unique`
      ]],
      ["a frontmatter that is not a mapping", "---\n- notes\n---\nbody", [
        `${label}: the frontmatter must be a YAML mapping with "name" and "description", got a list`
      ]],
      ["an empty frontmatter", "---\n---\nbody", [
        `${label}: the frontmatter must be a YAML mapping with "name" and "description", got nothing`
      ]],
      ["a missing name", "---\ndescription: d\n---\nbody", [
        `${label}: "name" is missing from the frontmatter; write name: notes`
      ]],
      ["a missing description", "---\nname: notes\n---\nbody", [
        `${label}: "description" is missing from the frontmatter; say what the skill does and when to use it`
      ]],
      ["both missing", "---\nlicense: MIT\n---\nbody", [
        `${label}: "name" is missing from the frontmatter; write name: notes`,
        `${label}: "description" is missing from the frontmatter; say what the skill does and when to use it`
      ]],
      ["a name that is not a string", "---\nname: 42\ndescription: d\n---\nbody", [
        `${label}: "name" must be a string, got 42`
      ]],
      ["an empty description", "---\nname: notes\ndescription:\n---\nbody", [
        `${label}: "description" is empty; say what the skill does and when to use it`
      ]],
      ["a name that does not match the folder", skillMd("memo", "d", "body"), [
        `${label}: name "memo" does not match the folder name "notes"; rename one of them so they agree`
      ]],
      ["a description over 1024 characters", skillMd("notes", "d".repeat(1025), "body"), [
        `${label}: "description" has 1025 characters, more than 1024`
      ]],
      ["no instructions", "---\nname: notes\ndescription: d\n---\n\n  \n", [
        `${label}: there are no instructions after the frontmatter`
      ]],
      ["an oversize body", skillMd("notes", "d", "b".repeat(skillLimits.bodyBytes + 1)), [
        `${label}: the instructions have ${skillLimits.bodyBytes + 1} bytes, more than ${skillLimits.bodyBytes}; shorten them`
      ]]
    ]
    for (const [title, text, expected] of cases) expect(errorsOf(text), title).toEqual(expected)
  })
})

// ---------------------------------------------------------------------------
// Loading skills

describe("loading skills", () => {
  it.effect("loads the good skills and reports and skips the broken ones", () =>
    Effect.gen(function*() {
      const ws = workspace()
      writeSkill(ws.skillsA, "notes", skillMd("notes", "Take notes.", "Use notes."))
      writeSkill(ws.skillsA, "broken", "no frontmatter here")
      writeSkill(ws.skillsA, "named", skillMd("other", "d", "b"))
      const huge = `---\nname: huge\ndescription: d\n---\n${"x".repeat(skillLimits.skillFileBytes)}`
      writeSkill(ws.skillsA, "huge", huge)
      mkdirSync(path.join(ws.skillsA, "empty"))
      mkdirSync(path.join(ws.skillsA, "bad name"))
      mkdirSync(path.join(ws.skillsA, ".git"))
      writeFileSync(path.join(ws.skillsA, "README.md"), "not a skill")
      const loaded = yield* load(ws, [ws.skillsA, path.join(ws.dir, "missing")], "full")
      expect(loaded.skills.map((s) => s.name)).toEqual(["notes"])
      const a = ws.skillsA
      expect(loaded.errors).toEqual([
        `${path.join(a, "bad name")}: "bad name" is not a valid skill name: use a letter or digit, then up to 63 letters, digits, "-" or "_"; the folder is skipped`,
        `skills directory ${JSON.stringify(path.join(ws.dir, "missing"))} does not exist`,
        `${a}/broken/SKILL.md: no frontmatter: the file must start with a line "---", then YAML with "name" and "description", then a line "---", then the instructions`,
        `${a}/empty/SKILL.md: missing; every skill folder needs a SKILL.md`,
        `${a}/huge/SKILL.md: the file has ${huge.length} bytes, more than ${skillLimits.skillFileBytes}`,
        `${a}/named/SKILL.md: name "other" does not match the folder name "named"; rename one of them so they agree`
      ])
    }))

  it.effect("puts every skill's instructions in the system text in full mode", () =>
    Effect.gen(function*() {
      const ws = workspace()
      writeSkill(ws.skillsA, "zeta", skillMd("zeta", "Last one.", "# Zeta\nDo Z."))
      writeSkill(ws.skillsA, "alpha", skillMd("alpha", "First one.", "# Alpha\nDo A.\u001b[2J"))
      const loaded = yield* load(ws, [ws.skillsA], "full")
      expect(loaded.systemText).toBe(
        "# SKILLS\nYou have access to the following skills. Use them when relevant.\n\n" +
          "## alpha\nFirst one.\n\n# Alpha\nDo A.[2J\n\n" +
          "## zeta\nLast one.\n\n# Zeta\nDo Z."
      )
      expect(loaded.tools).toEqual([])
      expect(loaded.errors).toEqual([])
      expect((yield* load(ws, [ws.skillsB], "full")).systemText).toBeUndefined()
    }))

  it.effect("lists skills and offers read_skill in readOnDemand mode", () =>
    Effect.gen(function*() {
      const ws = workspace()
      writeSkill(ws.skillsA, "notes", skillMd("notes", "Take notes when the user asks.", "# Notes\nSteps."))
      writeSkill(ws.skillsA, "deploy", skillMd("deploy", "Deploy the site.", "# Deploy\nRun it."))
      const loaded = yield* load(ws, [ws.skillsA], "readOnDemand")
      expect(loaded.systemText).toBe(
        "# SKILLS\nThese skills hold instructions for specific tasks. When a task clearly matches one, call read_skill with its\n" +
          "name to load its instructions before you act, then follow them.\n\nAvailable skills:\n" +
          "- deploy: Deploy the site.\n- notes: Take notes when the user asks."
      )
      expect(loaded.tools.map((t) => t.spec.name)).toEqual(["read_skill"])
      const readSkill = byName(loaded.tools, "read_skill")
      expect(yield* call(readSkill, { skill_name: "notes" })).toEqual(ToolResult.ok("# Skill: notes\n\n# Notes\nSteps."))
      expect(yield* call(readSkill, { skill_name: " Deploy " })).toEqual(
        ToolResult.ok("# Skill: deploy\n\n# Deploy\nRun it.")
      )
      expect(yield* call(readSkill, { skill_name: "note" })).toEqual(ToolResult.error(
        `read_skill: unknown skill "note". Did you mean "notes"? Available skills: deploy, notes.` +
          ` Example call: read_skill({"skill_name":"notes"})`
      ))
      expect(yield* call(readSkill, { skill_name: "weather" })).toEqual(ToolResult.error(
        `read_skill: unknown skill "weather". Available skills: deploy, notes.` +
          ` Example call: read_skill({"skill_name":"deploy"})`
      ))
      const missing = yield* call(readSkill, {})
      expect(missing.isError).toBe(true)
      expect(missing.content.startsWith("read_skill: invalid arguments: skill_name: is missing")).toBe(true)
      const none = yield* load(ws, [ws.skillsB], "readOnDemand")
      expect(none).toEqual({ skills: [], systemText: undefined, tools: [], errors: [], warnings: [] })
    }))

  it.effect("lets a later directory override an earlier one by name", () =>
    Effect.gen(function*() {
      const ws = workspace()
      writeSkill(ws.skillsA, "notes", skillMd("notes", "Old notes.", "old"))
      writeSkill(ws.skillsA, "keep", skillMd("keep", "Kept.", "kept"))
      writeSkill(ws.skillsA, "typo", skillMd("typo", "Old typo.", "old"))
      writeSkill(ws.skillsB, "notes", skillMd("notes", "New notes.", "new"))
      writeSkill(ws.skillsB, "typo", "---\nname: typo\n---\nnew")
      const loaded = yield* load(ws, [ws.skillsA, ws.skillsB], "full")
      expect(loaded.skills).toEqual([
        { name: "keep", description: "Kept.", folder: path.join(ws.skillsA, "keep"), tools: [] },
        { name: "notes", description: "New notes.", folder: path.join(ws.skillsB, "notes"), tools: [] }
      ])
      expect(loaded.systemText).toContain("## notes\nNew notes.\n\nnew")
      expect(loaded.systemText).not.toContain("old")
      expect(loaded.warnings).toEqual([
        `skill "notes": ${JSON.stringify(path.join(ws.skillsB, "notes"))} overrides ${
          JSON.stringify(path.join(ws.skillsA, "notes"))
        }`
      ])
      expect(loaded.errors).toEqual([
        `${ws.skillsB}/typo/SKILL.md: "description" is missing from the frontmatter; say what the skill does and when to use it`,
        `skill "typo" is not loaded: ${JSON.stringify(path.join(ws.skillsB, "typo"))} overrides ${
          JSON.stringify(path.join(ws.skillsA, "typo"))
        }, and an override that fails to load replaces the skill all the same`
      ])
      // The other order: the first directory wins now.
      const reversed = yield* load(ws, [ws.skillsB, ws.skillsA], "full")
      expect(reversed.systemText).toContain("## notes\nOld notes.\n\nold")
    }))

  it.effect("caps the skills section and skips what does not fit", () =>
    Effect.gen(function*() {
      const ws = workspace()
      const body = "b".repeat(skillLimits.bodyBytes - 100)
      for (const name of ["s1", "s2", "s3"]) writeSkill(ws.skillsA, name, skillMd(name, "d", body))
      const loaded = yield* load(ws, [ws.skillsA], "full")
      expect(loaded.skills.map((s) => s.name)).toEqual(["s1", "s2"])
      expect(loaded.errors).toEqual([
        `skill "s3" (${path.join(ws.skillsA, "s3")}) is not loaded: the skills section of the system prompt would ` +
        `exceed ${skillLimits.systemTextBytes} bytes; use the readOnDemand mode, or fewer or shorter skills`
      ])
      expect(Buffer.byteLength(loaded.systemText ?? "")).toBeLessThanOrEqual(skillLimits.systemTextBytes)
      const compact = yield* load(ws, [ws.skillsA], "readOnDemand")
      expect(compact.skills.map((s) => s.name)).toEqual(["s1", "s2", "s3"])
    }))
})

// ---------------------------------------------------------------------------
// tools.json

describe("skill tools", () => {
  const manifest = (tools: ReadonlyArray<Record<string, unknown>>) => ({ version: 1, tools })
  const echoTool = {
    name: "shout",
    description: "Print the text given.",
    command: "scripts/shout.sh",
    argv: ["--", "{text}"],
    parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    timeout_ms: 5000
  }
  const withScript = (ws: Workspace, tools: unknown) => {
    const folder = writeSkill(ws.skillsA, "shout", skillMd("shout", "Shout things.", "Use shout."), tools)
    mkdirSync(path.join(folder, "scripts"))
    const script = path.join(folder, "scripts", "shout.sh")
    writeFileSync(script, "#!/bin/sh\nprintf '%s!\\n' \"$2\"\n")
    chmodSync(script, 0o755)
    return folder
  }

  it.live("maps a descriptor to a working tool run without a shell", () =>
    Effect.gen(function*() {
      const ws = workspace()
      withScript(ws, manifest([echoTool]))
      const loaded = yield* load(ws, [ws.skillsA], "readOnDemand", { allowScripts: true })
      expect(loaded.errors).toEqual([])
      expect(loaded.tools.map((t) => t.spec.name)).toEqual(["read_skill", "shout"])
      expect(loaded.skills[0]?.tools).toEqual(["shout"])
      const shout = byName(loaded.tools, "shout")
      expect(shout?.spec.parameters).toEqual(echoTool.parameters)
      expect(yield* call(shout, { text: "hi; rm -rf ~ $(id)" })).toEqual(ToolResult.ok("hi; rm -rf ~ $(id)!\n"))
      expect(yield* call(shout, { text: 3 })).toEqual(ToolResult.error(
        `shout: invalid arguments: text: expected string, got number 3\n` +
          `Parameters: text (string, required)\nExample call: shout({"text":"<text>"})`
      ))
    }))

  it.live("runs an allow-listed host program", () =>
    Effect.gen(function*() {
      const ws = workspace()
      const tool = { name: "where", description: "Print the working directory.", command: "/bin/pwd", argv: [] }
      writeSkill(ws.skillsA, "where", skillMd("where", "Where am I.", "Use where."), manifest([tool]))
      const loaded = yield* load(ws, [ws.skillsA], "full", { allowedCommands: ["/bin/pwd"] })
      expect(loaded.errors).toEqual([])
      expect(yield* call(byName(loaded.tools, "where"), {})).toEqual(ToolResult.ok(`${ws.root}\n`))
    }))

  it.effect("rejects descriptors that break the rules, skipping the whole skill", () =>
    Effect.gen(function*() {
      const ws = workspace()
      const folder = withScript(ws, manifest([echoTool]))
      const label = path.join(folder, "tools.json")
      const script = JSON.stringify(path.join(folder, "scripts", "shout.sh"))
      const errorsWith = (tools: unknown, options: SkillsOptions = {}) =>
        Effect.map(
          Effect.suspend(() => {
            writeFileSync(label, typeof tools === "string" ? tools : JSON.stringify(tools))
            return load(ws, [ws.skillsA], "full", options)
          }),
          (loaded) => {
            expect(loaded.skills).toEqual([])
            expect(loaded.tools).toEqual([])
            expect(loaded.systemText).toBeUndefined()
            return loaded.errors
          }
        )
      expect(yield* errorsWith(manifest([echoTool]))).toEqual([
        `${label}: tool "shout": command ${script} is a program shipped with the skill; such programs run only when the operator enables allowScripts`
      ])
      expect(yield* errorsWith(manifest([{ ...echoTool, command: "/bin/sh", argv: ["-c", "{text}"] }]))).toEqual([
        `${label}: tool "shout": command "/bin/sh" is not allowed: the operator must list it in allowedCommands, or ship it in the skill folder and enable allowScripts`
      ])
      expect(yield* errorsWith(manifest([{ ...echoTool, command: "../../escape.sh" }]), { allowScripts: true }))
        .toEqual([`${label}: tools[0]: command "../../escape.sh" leaves the skill folder`])
      expect(yield* errorsWith(manifest([{ ...echoTool, command: "shout.sh" }]), { allowScripts: true })).toEqual([
        `${label}: tool "shout": command "shout.sh" is not an absolute path; write the full path (no PATH search happens), such as "/usr/bin/shout.sh"`
      ])
      expect(yield* errorsWith(manifest([{ ...echoTool, command: "scripts/none.sh" }]), { allowScripts: true }))
        .toEqual([`${label}: tool "shout": command ${JSON.stringify(path.join(folder, "scripts", "none.sh"))} does not exist`])
      expect(yield* errorsWith(manifest([{ ...echoTool, name: "read_skill" }]), { allowScripts: true })).toEqual([
        `${label}: tool "read_skill" collides with a built-in tool of the same name; choose another name`
      ])
      const syntax = yield* errorsWith("{\"version\": 1,", { allowScripts: true })
      expect(syntax).toHaveLength(1)
      expect(syntax[0]?.startsWith(`${label}: invalid JSON at line 1, column 15: `)).toBe(true)
      // A symbolic link inside the skill folder that leads out of it is not a shipped script.
      symlinkSync("/bin/echo", path.join(folder, "scripts", "echo"))
      expect(yield* errorsWith(manifest([{ ...echoTool, command: "scripts/echo" }]), { allowScripts: true })).toEqual([
        `${label}: tool "shout": command ${JSON.stringify(path.join(folder, "scripts", "echo"))} is not allowed: the operator must list it in allowedCommands`
      ])
    }))

  it.effect("refuses a tool name another skill already declared", () =>
    Effect.gen(function*() {
      const ws = workspace()
      const tool = { name: "where", description: "Print the working directory.", command: "/bin/pwd", argv: [] }
      writeSkill(ws.skillsA, "one", skillMd("one", "One.", "1"), manifest([tool]))
      writeSkill(ws.skillsA, "two", skillMd("two", "Two.", "2"), manifest([tool]))
      const loaded = yield* load(ws, [ws.skillsA], "full", { allowedCommands: ["/bin/pwd"], reservedNames: ["bash"] })
      expect(loaded.skills.map((s) => s.name)).toEqual(["one"])
      expect(loaded.tools.map((t) => t.spec.name)).toEqual(["where"])
      expect(loaded.errors).toEqual([
        `${path.join(ws.skillsA, "two", "tools.json")}: tool "where" is already declared by skill "one"; choose another name`
      ])
    }))
})
