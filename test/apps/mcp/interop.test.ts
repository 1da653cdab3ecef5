/**
 * The official MCP SDK as the peer of our server: its `Client` over
 * Streamable HTTP against the standalone app in-process, over stdio against
 * the real `easyai mcp --stdio` program, and a load of raw clients (undici)
 * against the app on loopback.
 */
import { describe, expect, it } from "@effect/vitest"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Clock, Effect, Schema } from "effect"
import { datetime, Tool } from "easyai"
import { Agent, request } from "undici"
import packageJson from "../../../package.json" with { type: "json" }
import { callParams, initializeParams, McpEndpoint, rpcNotification, rpcRequest, standalone } from "../../support/mcp.js"
import { cliBundle, projectRoot } from "../../support/process.js"
import { goneSoon } from "../../support/processes.js"
import { field } from "../../support/server.js"
import { echo } from "../../support/tools.js"

/** The SDK's client identity. */
const clientInfo = { name: "easyai-interop", version: "1.0.0" }

/** One promise-returning call (the SDK's, undici's); its rejection is the failure, as is. */
const sdk = <A>(run: () => Promise<A>) => Effect.tryPromise({ try: run, catch: (error) => error })

/** The SDK client connected over Streamable HTTP to the standalone app in context, closed with the scope. */
const httpClient = Effect.gen(function*() {
  const { url } = yield* McpEndpoint
  return yield* Effect.acquireRelease(
    sdk(async () => {
      const client = new Client(clientInfo)
      const transport = new StreamableHTTPClientTransport(new URL(url))
      await client.connect(transport)
      return { client, transport }
    }),
    ({ client }) => Effect.promise(() => client.close())
  )
})

/** The text of a result's first content item. */
const firstText = (content: unknown): string => {
  const item = field(content, 0)
  expect(field(item, "type")).toBe("text")
  const text = field(item, "text")
  return typeof text === "string" ? text : ""
}

/** A tool that declares every annotation. */
const annotated = Tool.make({
  name: "write_note",
  description: "Write a note.\nOverwrites a note of the same name.",
  parameters: Schema.Struct({ name: Schema.String, body: Schema.String }),
  annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  handler: ({ name }) => Effect.succeed(`wrote ${name}`)
})

describe("the MCP SDK client over Streamable HTTP", () => {
  it.live("connects, reads the server's identity, lists the tools with their annotations, and pings", () =>
    Effect.scoped(Effect.gen(function*() {
      const { client, transport } = yield* httpClient
      expect(client.getServerVersion()).toEqual({ name: "easyai", version: packageJson.version })
      expect(client.getServerCapabilities()).toMatchObject({ tools: {} })
      expect(client.getInstructions()).toBeUndefined()
      // The SDK speaks the newest version, and the server agreed to it.
      expect(transport.protocolVersion).toBe("2025-11-25")
      expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/)
      const { tools } = yield* sdk(() => client.listTools())
      expect(tools.map((tool) => tool.name)).toEqual(["echo", "write_note", "datetime"])
      expect(tools[0]?.description).toBe("Echo the text back.\nRequired: text.")
      expect(tools[0]?.inputSchema).toMatchObject({ type: "object", properties: { text: { type: "string" } } })
      expect(tools[1]?.annotations).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false })
      expect(tools[2]?.annotations).toEqual({ readOnlyHint: true, openWorldHint: false })
      expect(tools[2]?.outputSchema).toMatchObject({ type: "object" })
      expect(yield* sdk(() => client.ping())).toEqual({})
    })).pipe(Effect.provide(standalone({}, { tools: [echo, annotated, datetime] }))))

  it.live("calls echo, datetime (structuredContent validated by the SDK against outputSchema), and an unknown tool", () =>
    Effect.scoped(Effect.gen(function*() {
      const { client } = yield* httpClient
      // listTools first: the SDK caches the output schemas and validates structuredContent against them.
      yield* sdk(() => client.listTools())
      const echoed = yield* sdk(() => client.callTool(callParams("echo", { text: "from the SDK" })))
      expect(echoed.isError).toBe(false)
      expect(firstText(echoed.content)).toBe("from the SDK")

      const now = yield* sdk(() => client.callTool(callParams("datetime", { timezone: "UTC" })))
      expect(now.isError).toBe(false)
      const structured = now.structuredContent
      expect(structured).toMatchObject({ timeZone: "UTC", offset: "+00:00" })
      const unixTime = field(structured, "unixTime")
      const clockSeconds = Math.floor((yield* Clock.currentTimeMillis) / 1000)
      expect(typeof unixTime).toBe("number")
      expect(Math.abs(Number(unixTime) - clockSeconds)).toBeLessThan(60)
      expect(firstText(now.content)).toContain(`Unix time: ${String(unixTime)}`)

      const unknown = yield* sdk(() => client.callTool(callParams("no_such_tool", {})))
      expect(unknown.isError).toBe(true)
      expect(firstText(unknown.content)).toContain("unknown tool: no_such_tool")

      const bad = yield* sdk(() => client.callTool(callParams("echo", { text: 42 })))
      expect(bad.isError).toBe(true)
      expect(firstText(bad.content)).toContain("expected a string, got 42")
    })).pipe(Effect.provide(standalone({}, { tools: [echo, datetime] }))))

  it.live("terminates its session with DELETE; the server forgets it", () =>
    Effect.scoped(Effect.gen(function*() {
      const { base } = yield* McpEndpoint
      const { transport } = yield* httpClient
      const sessions = sdk(async () => {
        const response = await fetch(`${base}/health`)
        return field(await response.json(), "sessions")
      })
      expect(yield* sessions).toBe(1)
      yield* sdk(() => transport.terminateSession())
      expect(transport.sessionId).toBeUndefined()
      expect(yield* sessions).toBe(0)
    })).pipe(Effect.provide(standalone({}, { tools: [echo] }))))

  it.live("works against the server with sessions off", () =>
    Effect.scoped(Effect.gen(function*() {
      const { client, transport } = yield* httpClient
      expect(transport.sessionId).toBeUndefined()
      expect(client.getServerVersion()?.name).toBe("easyai")
      const { tools } = yield* sdk(() => client.listTools())
      expect(tools.map((tool) => tool.name)).toEqual(["echo"])
      const echoed = yield* sdk(() => client.callTool(callParams("echo", { text: "stateless" })))
      expect(firstText(echoed.content)).toBe("stateless")
      expect(yield* sdk(() => client.ping())).toEqual({})
    })).pipe(Effect.provide(standalone({ sessions: false }, { tools: [echo] }))))

  it.live("pages through tools/list for the SDK with a small page size", () =>
    Effect.scoped(Effect.gen(function*() {
      const { client } = yield* httpClient
      const names: Array<string> = []
      let cursor: string | undefined = undefined
      for (let page = 0; page < 10; page++) {
        const listed: Awaited<ReturnType<Client["listTools"]>> = yield* sdk(() => client.listTools(cursor === undefined ? {} : { cursor }))
        names.push(...listed.tools.map((tool) => tool.name))
        cursor = listed.nextCursor
        if (cursor === undefined) break
      }
      expect(names).toEqual(["echo", "write_note", "datetime"])
    })).pipe(Effect.provide(standalone({ pageSize: 2 }, { tools: [echo, annotated, datetime] }))))
})

describe("the MCP SDK client over stdio, against the real easyai mcp --stdio", () => {
  it.live("lists exactly the allowed tools, calls datetime, and the program ends when the client closes", () =>
    Effect.gen(function*() {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [cliBundle, "mcp", "--stdio", "--tools", "datetime,tool_lookup"],
        cwd: projectRoot,
        stderr: "pipe"
      })
      const client = new Client(clientInfo)
      const used = Effect.gen(function*() {
        yield* sdk(() => client.connect(transport))
        const pid = transport.pid
        expect(pid).toBeGreaterThan(0)
        expect(client.getServerVersion()?.name).toBe("easyai")
        const { tools } = yield* sdk(() => client.listTools())
        expect(tools.map((tool) => tool.name).sort()).toEqual(["datetime", "tool_lookup"])
        const now = yield* sdk(() => client.callTool(callParams("datetime", { timezone: "Asia/Tokyo" })))
        expect(now.isError).toBe(false)
        expect(now.structuredContent).toMatchObject({ timeZone: "Asia/Tokyo", offset: "+09:00" })
        expect(firstText(now.content)).toContain("Time zone: Asia/Tokyo")
        const hidden = yield* sdk(() => client.callTool(callParams("web_fetch", { url: "https://example.com" })))
        expect(hidden.isError).toBe(true)
        // --tools narrows the registry itself: tool_lookup indexes only what a client can call.
        const index = firstText((yield* sdk(() => client.callTool(callParams("tool_lookup", {})))).content)
        expect(index).toContain("datetime")
        expect(index).not.toContain("web_fetch")
        expect(yield* sdk(() => client.ping())).toEqual({})

        // Closing the client closes the pipe; the program sees the end of stdin and exits.
        yield* sdk(() => client.close())
        expect(yield* goneSoon(pid ?? -1)).toBe(true)
      })
      yield* used.pipe(Effect.ensuring(Effect.promise(() => client.close())))
    }), { timeout: 60_000 })
})

describe("load", () => {
  const clients = 1000

  it.live(`serves ${clients} concurrent clients over loopback: initialize, initialized, then each its own echo`, () =>
    Effect.gen(function*() {
      const { url, base } = yield* McpEndpoint
      const agent = yield* Effect.acquireRelease(
        Effect.sync(() => new Agent({ connections: clients, pipelining: 1 })),
        (agent) => Effect.promise(() => agent.close())
      )
      const post = (body: unknown, headers: Readonly<Record<string, string>>) =>
        sdk(async () => {
          const response = await request(url, {
            dispatcher: agent,
            method: "POST",
            headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
            body: JSON.stringify(body)
          })
          const text = await response.body.text()
          return { status: response.statusCode, session: response.headers["mcp-session-id"], text }
        })

      const one = (index: number) =>
        Effect.gen(function*() {
          const initialized = yield* post(rpcRequest(index, "initialize", initializeParams()), {})
          if (initialized.status !== 200 || typeof initialized.session !== "string") {
            return `client ${index}: initialize answered ${initialized.status}`
          }
          const session = { "mcp-session-id": initialized.session }
          const acknowledged = yield* post(rpcNotification("notifications/initialized"), session)
          if (acknowledged.status !== 202 || acknowledged.text !== "") return `client ${index}: initialized answered ${acknowledged.status}`
          const text = `client-${index}-${"é".repeat(index % 7)}`
          const called = yield* post(rpcRequest(`call-${index}`, "tools/call", callParams("echo", { text })), session)
          const body: unknown = JSON.parse(called.text)
          if (called.status !== 200 || field(body, "id") !== `call-${index}`) return `client ${index}: tools/call answered ${called.status}`
          if (field(body, "result", "isError") !== false) return `client ${index}: isError`
          const echoed = field(body, "result", "content", 0, "text")
          return echoed === text ? undefined : `client ${index}: got ${String(echoed)}`
        })

      const outcomes = yield* Effect.forEach(Array.from({ length: clients }, (_, index) => index), one, { concurrency: "unbounded" })
      expect(outcomes.filter((outcome) => outcome !== undefined)).toEqual([])
      expect(outcomes).toHaveLength(clients)
      const health = yield* sdk(async () => (await fetch(`${base}/health`)).json())
      expect(field(health, "sessions")).toBe(clients)
    }).pipe(
      Effect.scoped,
      // A throughput test from one address: it opts out of the per-client limits (test/security replays those),
      // with room beyond the clients' own connections, which may still be open, for the health check after them.
      Effect.provide(standalone({ maxConcurrent: clients }, { tools: [echo] }, { maxClientConnections: 2 * clients }))
    ), { timeout: 120_000 })
})
