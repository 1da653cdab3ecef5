/**
 * The one HTTP stack: the remote client, the MCP client and the web tools
 * build their clients through `HttpClientLive`, so one Layer sees (or
 * replaces) every request they send, and the web tools' address policy
 * still holds under whatever that Layer adds.
 */
import { HttpClient, HttpClientResponse } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import {
  Client,
  ClientLive,
  ConfigurationError,
  HttpClientLive,
  McpClient,
  SessionStack,
  type Tool,
  webTools
} from "easyai"
import { ScriptedChatModel } from "easyai/testing"
import { loopbackServer } from "../../support/loopbackServer.js"
import * as SdkMcpServer from "../../support/sdkMcpServer.js"
import { tempDir } from "../../support/tempDir.js"
import * as path from "node:path"

/** A peer answering the OpenAI model list and one HTML page. */
const peer = loopbackServer((req, res) => {
  if (req.url === "/v1/models") {
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data: [{ id: "peer-model" }] }))
  } else {
    res.writeHead(200, { "content-type": "text/html" }).end("<html><body><p>A page on loopback.</p></body></html>")
  }
}).pipe(Effect.orDie)

const call = (tools: ReadonlyArray<Tool.Tool>, name: string, args: unknown) => {
  const tool = tools.find((candidate) => candidate.spec.name === name)
  if (tool === undefined) return Effect.dieMessage(`no tool ${name}`)
  return tool.invoke(JSON.stringify(args))
}

/** A hook recording each request's method and URL. */
const recorder = () => {
  const seen: Array<string> = []
  const layer = HttpClientLive.transform(
    HttpClient.tapRequest((request) => Effect.sync(() => seen.push(`${request.method} ${request.url}`)))
  )
  return { seen, layer }
}

describe("HttpClientLive", () => {
  it.live("one Layer records the remote client's and the web tools' requests", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* peer
      const { layer, seen } = recorder()
      const models = yield* Effect.flatMap(Client, (client) => client.models).pipe(
        Effect.provide(ClientLive.layer({ baseUrl: server.base, retries: 0 })),
        Effect.provide(layer)
      )
      expect(models.map((model) => model.id)).toEqual(["peer-model"])
      const page = yield* Effect.flatMap(
        webTools({ allowNetworks: ["127.0.0.1/32"], fetchRetries: 0, fetchTimeout: "5 seconds" }),
        (tools) => call(tools, "web_fetch", { url: `${server.base}/page` })
      ).pipe(Effect.provide(layer))
      expect(page.isError).toBe(false)
      expect(page.content).toContain("A page on loopback.")
      expect(seen).toEqual([`GET ${server.base}/v1/models`, `GET ${server.base}/page`])
      expect(server.hits).toEqual(["/v1/models", "/page"])
    })))

  it.live("the same Layer records the MCP client's requests to an MCP server over HTTP", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* SdkMcpServer.start()
      const { layer, seen } = recorder()
      const stack = SessionStack.layer({
        model: ScriptedChatModel.layer([]),
        session: { withDefaultTools: false },
        mcp: { servers: [{ url: server.url, alias: "sdk" }], retries: 0 }
      })
      const servers = yield* Effect.flatMap(McpClient, (mcp) => mcp.servers).pipe(
        Effect.provide(stack),
        Effect.provide(layer)
      )
      expect(servers.map((connected) => connected.alias)).toEqual(["sdk"])
      expect(seen.length).toBeGreaterThan(0)
      expect(seen.every((request) => request.endsWith(` ${server.url}`))).toBe(true)
      expect(seen).toContain(`POST ${server.url}`)
    })))

  it.live("a test client replaces the network by one Layer", () =>
    Effect.gen(function*() {
      const canned = HttpClientLive.transform(() =>
        HttpClient.make((request) =>
          Effect.succeed(HttpClientResponse.fromWeb(
            request,
            new Response(JSON.stringify({ data: [{ id: "canned" }] }), { headers: { "content-type": "application/json" } })
          ))
        )
      )
      // Port 9 on loopback has no listener: an answer can only come from the test client.
      const models = yield* Effect.flatMap(Client, (client) => client.models).pipe(
        Effect.provide(ClientLive.layer({ baseUrl: "http://127.0.0.1:9", retries: 0 })),
        Effect.provide(canned)
      )
      expect(models.map((model) => model.id)).toEqual(["canned"])
    }))

  it.live("the web tools keep their address policy under a recording hook", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* peer
      const { layer } = recorder()
      const refused = yield* Effect.flatMap(
        webTools({ fetchRetries: 0, fetchTimeout: "5 seconds" }),
        (tools) => call(tools, "web_fetch", { url: `${server.base}/page` })
      ).pipe(Effect.provide(layer))
      expect(refused.isError).toBe(true)
      expect(refused.content).toContain("127.0.0.1")
      expect(server.connections()).toBe(0)
    })))

  it.scoped("the default client fails with a typed error naming an unreadable CA file", () =>
    Effect.gen(function*() {
      const caFile = path.join(tempDir(), "missing-ca.pem")
      const exit = yield* Effect.exit(HttpClientLive.make({ tls: { caFile } }))
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) {
        const error = exit.cause._tag === "Fail" ? exit.cause.error : undefined
        expect(error).toBeInstanceOf(ConfigurationError)
        expect(error?.message).toContain(`cannot read the TLS CA file ${caFile}`)
      }
    }))

  it.live("the hook is the identity when no Layer sets it", () =>
    Effect.gen(function*() {
      const client = HttpClient.make(() => Effect.die("unused"))
      expect(yield* HttpClientLive.transformed(client)).toBe(client)
    }))
})
