/**
 * The package's surface: docs/api.md is the page the curated exports
 * generate (a name added, removed or re-documented without regenerating it
 * fails here), and `easyai/testing` is reachable through the export map.
 */
import { describe, expect, it } from "@effect/vitest"
import { Command } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { Effect } from "effect"
import { existsSync, readFileSync } from "node:fs"
import * as path from "node:path"
import packageJson from "../../package.json" with { type: "json" }
import { apiPage, renderApi } from "../../scripts/api-docs.js"
import { projectRoot } from "../support/process.js"

describe("docs/api.md", () => {
  it("is the page generated from src/index.ts and src/testing.ts (regenerate: npx tsx scripts/api-docs.ts --write)", () => {
    expect(readFileSync(apiPage, "utf8")).toBe(renderApi())
  })

  it("lists the façade at the root and leaves the internals out", () => {
    const page = renderApi()
    for (const name of ["easyai", "EasyAgent", "tool", "Session", "SessionStack", "UserMessage", "ScriptedChatModel"]) {
      expect(page, name).toContain(`| \`${name}\` |`)
    }
    for (const name of ["notFound", "utf8Length", "parseKey", "renderEntry", "JsonRpcRequest", "ApiError"]) {
      expect(page, name).not.toContain(`| \`${name}\` |`)
    }
  })
})

describe("the export map", () => {
  it("maps easyai/testing to the built module and its types", () => {
    expect(packageJson.exports["./testing"]).toEqual({ types: "./dist/testing.d.ts", import: "./dist/testing.js" })
  })

  it.live("resolves easyai/testing from the built package, as an installed copy does", () =>
    Effect.gen(function*() {
      const built = path.join(projectRoot, packageJson.exports["./testing"].import)
      if (!existsSync(built)) return yield* Effect.dieMessage(`${built} is missing: npm run build makes it`)
      // Plain node (no tsx, no tsconfig paths) importing the package by name resolves it through `exports`.
      const code = `const m = await import("easyai/testing"); console.log(Object.keys(m).sort().join(","))`
      const stdout = yield* Command.make(process.execPath, "--input-type=module", "-e", code).pipe(
        Command.workingDirectory(projectRoot),
        Command.string,
        Effect.provide(NodeContext.layer)
      )
      expect(stdout.trim().split(",")).toEqual(["ScriptedChatModel", "scriptedServer", "scriptedSession", "testServer"])
    }), 60_000)
})
