/**
 * `--mcp` and `/mcp connect` take a stdio server's command line, not only a
 * URL: here the server is a second `easyai mcp --stdio`, started by the first.
 */
import { describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { Effect } from "effect"
import { callParams } from "../support/mcp.js"
import { cliBundle, cliCommand, projectRoot } from "../support/process.js"
import { onTerminal } from "../support/pty.js"
import { baseUrl, scriptedServer } from "../support/server.js"
import { tempDir } from "../support/tempDir.js"

/** The command line of an `easyai mcp --stdio` serving only datetime. */
const innerServer = [...cliCommand, "mcp", "--stdio", "--tools", "datetime"]
  .map((word) => `'${word}'`)
  .join(" ")

describe("stdio MCP servers by command line", () => {
  it.live("--mcp \"COMMAND ARG…=alias\" starts the server and takes on its tools", () =>
    Effect.gen(function*() {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [cliBundle, "mcp", "--stdio", "--tools", "inner__datetime", "--mcp", `${innerServer}=inner`],
        cwd: projectRoot,
        stderr: "pipe"
      })
      const client = new Client({ name: "stdio-servers-test", version: "1.0.0" })
      const used = Effect.gen(function*() {
        yield* Effect.promise(() => client.connect(transport))
        const { tools } = yield* Effect.promise(() => client.listTools())
        expect(tools.map((tool) => tool.name)).toContain("inner__datetime")
        const now = yield* Effect.promise(() => client.callTool(callParams("inner__datetime", { timezone: "UTC" })))
        expect(now.isError).toBeFalsy()
        expect(JSON.stringify(now.content)).toContain("Time zone: UTC")
      })
      yield* used.pipe(Effect.ensuring(Effect.promise(() => client.close())))
    }), { timeout: 90_000 })

  it.scopedLive("/mcp connect COMMAND…=alias in the REPL", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const terminal = yield* onTerminal(["--url", url, "--no-tools"], tempDir())
      yield* terminal.waitFor("> ")
      yield* terminal.type(`/mcp connect ${innerServer}=clock\r`)
      yield* terminal.waitFor(/connected clock \(easyai [^)]*\): \d+ tools/)
      yield* terminal.type("/mcp tools\r")
      yield* terminal.waitFor("clock.datetime — ")
      yield* terminal.type("/mcp connect no-such-program-here\r")
      yield* terminal.waitFor("cannot start no-such-program-here")
      yield* terminal.type("/exit\r")
      expect(yield* terminal.exited).toBe(0)
    }).pipe(Effect.provide(scriptedServer([]))), { timeout: 90_000 })
})
