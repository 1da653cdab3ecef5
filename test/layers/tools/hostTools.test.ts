import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync, writeFileSync, chmodSync } from "node:fs"
import * as path from "node:path"
import { easyai, Session, SessionStack, ToolRegistry } from "easyai"
import { ScriptedChatModel as Scripted } from "easyai/testing"
import { tempDir } from "../../support/tempDir.js"

const toolNames = Effect.flatMap(ToolRegistry, (registry) => Effect.map(registry.specs, (specs) => specs.map((s) => s.name)))

describe("host tools in a session", () => {
  it.effect("registers nothing that touches the host without a sandbox", () =>
    Effect.gen(function*() {
      expect(yield* toolNames).toEqual(["datetime", "plan", "web_search", "web_fetch", "tool_lookup"])
    }).pipe(Effect.provide(SessionStack.layer({ model: Scripted.layer([]) }))))

  it.effect("registers the fs tools and evaluate with a sandbox, and lists them in the system prompt", () =>
    Effect.gen(function*() {
      const names = yield* toolNames
      expect(names).toContain("fs_read")
      expect(names).toContain("fs_write")
      expect(names).toContain("evaluate")
      expect(names).not.toContain("bash")
      expect(names).not.toContain("fs")
      const system = yield* Effect.flatMap(Session, (s) => s.system)
      expect(system).toContain("- fs_write — ")
      expect(system).toContain("## Write/edit policy (AUTHORITATIVE)")
      expect(system).toContain("To create or change a file, use fs_write.")
    }).pipe(Effect.provide(SessionStack.layer({ model: Scripted.layer([]), host: { root: tempDir() } }))))

  it.effect("shows the unified fs surface in unified mode, and leaves Python out when asked", () =>
    Effect.gen(function*() {
      const names = yield* toolNames
      expect(names).toContain("fs")
      expect(names).not.toContain("fs_read")
      expect(names).not.toContain("evaluate")
    }).pipe(Effect.provide(SessionStack.layer({
      model: Scripted.layer([]),
      toolMode: "unified",
      host: { root: tempDir(), evaluate: false }
    }))))

  it.effect("brings the fs tools along with bash, and loads external tools", () => {
    const root = tempDir()
    const tools = tempDir()
    const script = path.join(tools, "hello.sh")
    writeFileSync(script, "#!/bin/sh\necho hello \"$1\"\n")
    chmodSync(script, 0o755)
    writeFileSync(
      path.join(tools, "EASYAI-hello.tools"),
      JSON.stringify({
        version: 1,
        tools: [{
          name: "say_hello",
          description: "Say hello to someone.",
          command: script,
          argv: ["{name}"],
          parameters: { type: "object", properties: { name: { type: "string" } }, required: ["name"] }
        }]
      })
    )
    writeFileSync(path.join(tools, "EASYAI-broken.tools"), "{ not json")
    return Effect.gen(function*() {
      const names = yield* toolNames
      expect(names).toEqual(expect.arrayContaining(["bash", "fs_read", "fs_write", "say_hello"]))
    }).pipe(Effect.provide(SessionStack.layer({
      model: Scripted.layer([]),
      host: { root, fs: false, bash: true, evaluate: false, externalTools: tools }
    })))
  })
})

describe("host tools through the façade", () => {
  it("writes a file and runs a shell command in the sandbox", async () => {
    const root = tempDir()
    const agent = easyai.withModel(Scripted.layer([
      Scripted.toolCall("fs_write", { path: "/notes/hello.txt", content: "hi there\n" }),
      Scripted.toolCall("bash", { command: "wc -c < notes/hello.txt" }),
      Scripted.reply("done")
    ])).sandbox(root).allowBash()
    const results: Array<string> = []
    for await (const event of agent.stream("make a note")) {
      if (event._tag === "ToolCallFinished") results.push(event.result.content)
    }
    await agent.close()
    expect(readFileSync(path.join(root, "notes", "hello.txt"), "utf8")).toBe("hi there\n")
    expect(results[1]).toBe("9\n[exit code 0]")
  })
})
