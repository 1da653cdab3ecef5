/**
 * `easyai mcp --stdio --verbose --trace-file`: a tool call is traced and
 * shown on stderr, while stdout stays the protocol alone.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { TraceReplay } from "easyai"
import { readFileSync } from "node:fs"
import * as path from "node:path"
import { callParams, rpcRequest } from "../../support/mcp.js"
import { startMcpStdio } from "../../support/mcpStdio.js"
import { tempDir } from "../../support/tempDir.js"

describe("easyai mcp --stdio with tracing", () => {
  it.scoped("traces a tool call to the file and to stderr; stdout carries only replies", () =>
    Effect.gen(function*() {
      const file = path.join(tempDir(), "mcp.jsonl")
      const { finish, reply, send } = yield* startMcpStdio("--tools", "datetime", "-v", "--trace-file", file)
      yield* send(JSON.stringify(rpcRequest(1, "tools/call", callParams("datetime", { timezone: "Europe/Berlin" }))))
      const answered = yield* reply
      expect(answered).toMatchObject({ id: 1, result: { isError: false } })
      const { exitCode, rest, stderr } = yield* finish
      expect(exitCode).toBe(0)
      expect([...rest]).toEqual([])
      expect([...stderr].some((line) => /^\[dispatch\] datetime → ok · \d+ ms$/.test(line)), [...stderr].join("\n")).toBe(true)
      const records = Either.getOrThrow(TraceReplay.parseTrace(file, readFileSync(file, "utf8")))
      const call = records.find((record) => record.name === "ToolRegistry.call")
      expect(call?.attributes).toMatchObject({ "gen_ai.tool.name": "datetime", "easyai.tool.is_error": false })
    }), { timeout: 120_000 })
})
