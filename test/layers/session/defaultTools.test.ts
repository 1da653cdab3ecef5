import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Stream } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { Plan, Session, SessionStack, ToolRegistry } from "easyai"
import { ScriptedChatModel as Scripted } from "easyai/testing"
import { tempDir } from "../../support/tempDir.js"

/** A skills directory holding one skill, `greeting`. */
const greetingSkill = (): string => {
  const skills = tempDir()
  mkdirSync(path.join(skills, "greeting"))
  writeFileSync(
    path.join(skills, "greeting", "SKILL.md"),
    "---\nname: greeting\ndescription: How to greet people politely.\n---\nSay hello, then the name.\n"
  )
  return skills
}

const names = Effect.flatMap(ToolRegistry, (registry) => Effect.map(registry.specs, (specs) => specs.map((s) => s.name)))
const system = Effect.flatMap(Session, (session) => session.system)

describe("the default toolset (reference table)", () => {
  it.effect("registers datetime, plan and web by default, tool_lookup last", () =>
    Effect.gen(function*() {
      expect(yield* names).toEqual(["datetime", "plan", "web_search", "web_fetch", "tool_lookup"])
    }).pipe(Effect.provide(SessionStack.layer({ model: Scripted.layer([]) }))))

  it.effect("leaves plan and web out on request", () =>
    Effect.gen(function*() {
      expect(yield* names).toEqual(["datetime", "tool_lookup"])
    }).pipe(Effect.provide(SessionStack.layer({ model: Scripted.layer([]), plan: false, web: false }))))

  it.effect("registers none of them without the default tools", () =>
    Effect.gen(function*() {
      expect(yield* names).toEqual([])
    }).pipe(Effect.provide(SessionStack.layer({ model: Scripted.layer([]), session: { withDefaultTools: false } }))))

  it.effect("orders host tools, memory and skills before the session's tools and tool_lookup", () => {
    const root = tempDir()
    const skills = greetingSkill()
    return Effect.gen(function*() {
      const all = yield* names
      expect(all.slice(0, 4)).toEqual(["datetime", "plan", "web_search", "web_fetch"])
      expect(all.indexOf("fs_read")).toBeLessThan(all.indexOf("knowledge_search"))
      expect(all.indexOf("knowledge_search")).toBeLessThan(all.indexOf("read_skill"))
      expect(all.at(-1)).toBe("tool_lookup")
      expect(all).not.toContain("bash")
    }).pipe(Effect.provide(SessionStack.layer({
      model: Scripted.layer([]),
      host: { root },
      memory: tempDir(),
      skills: { directories: [skills] }
    })))
  })
})

describe("workspace context, skills and memory in the system prompt", () => {
  it.effect("joins AGENTS.md and the skills list to the base prompt", () => {
    const workspace = tempDir()
    writeFileSync(path.join(workspace, "AGENTS.md"), "# Project rules\nUse tabs.\n")
    const skills = greetingSkill()
    return Effect.gen(function*() {
      const prompt = yield* system
      expect(prompt.startsWith("Be terse.\n\n# Project rules\nUse tabs.")).toBe(true)
      expect(prompt).toContain("greeting: How to greet people politely.")
      expect(prompt).not.toContain("Say hello, then the name.")
      expect(prompt.indexOf("greeting")).toBeLessThan(prompt.indexOf("# AUTHORITATIVE DATE/TIME"))
    }).pipe(Effect.provide(SessionStack.layer({
      model: Scripted.layer([]),
      session: { system: "Be terse." },
      workspace,
      skills: { directories: [skills], mode: "readOnDemand" }
    })))
  })

  it.effect("teaches the memory loop, and lists the vocabulary once the model saved something", () =>
    Effect.gen(function*() {
      const session = yield* Session
      expect(yield* session.system).toContain("# KNOWLEDGE LOOP")
      expect(yield* session.system).not.toContain("# MEMORY VOCABULARY")
      yield* session.chat("remember this")
      yield* session.refreshSystem
      const prompt = yield* session.system
      expect(prompt).toContain("# MEMORY VOCABULARY")
      expect(prompt).toContain("easyai(1)")
    }).pipe(Effect.provide(SessionStack.layer({
      model: Scripted.layer([
        Scripted.toolCall("knowledge_save", { keywords: ["easyai", "design"], content: "Layers all the way down." }),
        Scripted.reply("Saved.")
      ]),
      memory: tempDir()
    }))))

  it.effect("publishes one plan change per plan call, for a program to render live", () =>
    Effect.gen(function*() {
      const plan = yield* Plan
      const session = yield* Session
      const changes = yield* Stream.take(plan.changes, 1).pipe(Stream.runCollect, Effect.fork)
      yield* Effect.yieldNow()
      yield* session.chat("plan it")
      const [snapshot] = Chunk.toArray(yield* Fiber.join(changes))
      expect(snapshot?.items.map((item) => item.text)).toEqual(["write tests", "ship"])
    }).pipe(Effect.provide(SessionStack.layer({
      model: Scripted.layer([
        Scripted.toolCall("plan", { action: "add", items: [{ text: "write tests" }, { text: "ship" }] }),
        Scripted.reply("Planned.")
      ])
    }))))
})
