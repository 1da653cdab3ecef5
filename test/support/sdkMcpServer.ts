/**
 * A third-party MCP server for client tests: built with the official SDK
 * (`McpServer` + `StreamableHTTPServerTransport`, zod schemas), stateful
 * (one SDK server and transport per session, ids from `randomUUID`), on
 * `node:http` on a free loopback port for the life of the scope.
 *
 * Tools:
 * - `echo({ text })` — the text back;
 * - `add({ a, b })` — the sum as `structuredContent` (with an `outputSchema`) and as text;
 * - `fail()` — an `isError` result;
 * - `slow()` — answers only once `releaseSlow` runs (or the call is aborted);
 * - `grow({ name })` — registers a new tool `name` on the caller's session and sends
 *   `notifications/tools/list_changed` within this call's SSE reply.
 * - `ask_back({ requests })` — sends the client `requests` server-to-client `ping`
 *   requests within this call's SSE reply (not awaiting their answers), then answers
 *   `asked <requests>`. The SDK numbers its own requests 0, 1, 2, … per session.
 *
 * Why `grow` sends the notification itself: the SDK's own `registerTool`
 * after connect sends `list_changed` without a related request, so the
 * transport puts it on the standalone GET stream (and drops it when no client
 * holds one open). Only a notification sent through the handler's
 * `extra.sendNotification` travels inside the POST's SSE reply, which is the
 * only place a client that never opens the GET stream hears it.
 *
 * Hooks let a test count what arrived, forget every session (the next
 * request with the old id gets 404), answer the next requests with a chosen
 * status or JSON-RPC error before the SDK sees them, and stop the server.
 */
import { InMemoryEventStore } from "@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { EmptyResultSchema, isInitializeRequest } from "@modelcontextprotocol/sdk/types.js"
import { Effect, type Scope } from "effect"
import { randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { z } from "zod"

/** How the server answers. */
export interface SdkServerOptions {
  /** Plain JSON replies instead of SSE (`enableJsonResponse`). Default false: SSE. */
  readonly jsonResponse?: boolean
  /** The name the server reports in `initialize`. Default `sdk-test-server`. */
  readonly name?: string
  /**
   * Resumable SSE streams (the SDK's `InMemoryEventStore`, as in its own
   * examples): every SSE reply then starts with a priming event — an `id`
   * and an empty `data` field — for clients speaking MCP 2025-11-25.
   */
  readonly resumable?: boolean
  /** The loopback port to listen on. Default: a free one. */
  readonly port?: number
}

/** One HTTP request as the server received it. */
export interface SeenRequest {
  /** `POST`, `GET` or `DELETE`. */
  readonly httpMethod: string
  /** The JSON-RPC method of a POST, when it carried one. */
  readonly rpcMethod: string | undefined
  /** For `tools/call`: the tool's name. */
  readonly tool: string | undefined
  /** The `Mcp-Session-Id` it carried. */
  readonly sessionId: string | undefined
  /** Who answered: the SDK, a hook (`injected`), or the router (`unknown-session`, `bad-request`). */
  readonly answeredBy: "sdk" | "injected" | "unknown-session" | "bad-request"
}

/** The running server and its hooks. */
export interface SdkServer {
  /** The Streamable HTTP endpoint, `http://127.0.0.1:<port>/mcp`. */
  readonly url: string
  /** Every request received, in order. */
  readonly requests: Effect.Effect<ReadonlyArray<SeenRequest>>
  /** How many requests carried JSON-RPC `method` (and, for `tools/call`, `tool` when given). */
  readonly count: (method: string, tool?: string) => Effect.Effect<number>
  /** The sessions currently open. */
  readonly sessions: Effect.Effect<number>
  /** Forgets every session: a request with an old `Mcp-Session-Id` gets 404. */
  readonly forgetSessions: Effect.Effect<void>
  /** Answers the next `times` requests with HTTP `status` before the SDK sees them. */
  readonly failNext: (times: number, status: number) => Effect.Effect<void>
  /** Answers the next `tools/call` with a JSON-RPC error (HTTP 200, JSON) before the SDK sees it. */
  readonly rpcErrorNext: (code: number, message: string) => Effect.Effect<void>
  /**
   * Holds the next `initialize` once it has arrived (and been recorded) until
   * the returned Effect (or `releaseSlow`, or `stop`) runs: a window in which
   * a client is re-initializing.
   */
  readonly holdNextInitialize: Effect.Effect<Effect.Effect<void>>
  /**
   * Registers a tool `name` on every open session with no request behind it:
   * the SDK then says `tools/list_changed` on the standalone GET stream only.
   */
  readonly growUnprompted: (name: string) => Effect.Effect<void>
  /** Lets every waiting `slow` call answer. */
  readonly releaseSlow: Effect.Effect<void>
  /** Stops listening and cuts every open connection, as a server that dies. */
  readonly stop: Effect.Effect<void>
}

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] })

/** The JSON-RPC `method` and tool name of a parsed body, when it is one request. */
const describe = (body: unknown): { readonly method: string | undefined; readonly tool: string | undefined; readonly id: unknown } => {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return { method: undefined, tool: undefined, id: undefined }
  const record = new Map(Object.entries(body))
  const method = record.get("method")
  const params = record.get("params")
  const tool = typeof params === "object" && params !== null ? new Map(Object.entries(params)).get("name") : undefined
  return {
    method: typeof method === "string" ? method : undefined,
    tool: typeof tool === "string" ? tool : undefined,
    id: record.get("id")
  }
}

const readBody = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    request.on("error", reject)
  })

const parse = (raw: string): unknown => {
  if (raw === "") return undefined
  try {
    return JSON.parse(raw)
  } catch {
    return undefined
  }
}

const sendJson = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body))
}

/** Starts the server; it stops when the scope closes. */
export const start = (options: SdkServerOptions = {}): Effect.Effect<SdkServer, never, Scope.Scope> =>
  Effect.gen(function*() {
    const seen: Array<SeenRequest> = []
    const transports = new Map<string, StreamableHTTPServerTransport>()
    const injected: Array<number> = []
    const rpcErrors: Array<{ readonly code: number; readonly message: string }> = []
    let releaseWaiting: Array<() => void> = []
    const initializeHolds: Array<Promise<void>> = []

    /** One SDK server per session, as the SDK requires (a server holds one transport). */
    const sdkServers: Array<McpServer> = []
    const newSdkServer = () => {
      const server = new McpServer({ name: options.name ?? "sdk-test-server", version: "1.2.3" })
      sdkServers.push(server)
      server.registerTool("echo", { description: "Echo the text back.", inputSchema: { text: z.string() } }, ({ text: said }) =>
        text(said))
      server.registerTool(
        "add",
        {
          description: "Add two numbers.",
          inputSchema: { a: z.number(), b: z.number() },
          outputSchema: { sum: z.number() },
          annotations: { readOnlyHint: true }
        },
        ({ a, b }) => ({ ...text(String(a + b)), structuredContent: { sum: a + b } })
      )
      server.registerTool("fail", { description: "Always fails." }, () => ({ ...text("the fail tool failed, as asked"), isError: true }))
      server.registerTool("slow", { description: "Answers when released." }, (extra) =>
        new Promise<ReturnType<typeof text>>((resolve) => {
          const done = () => resolve(text("released"))
          releaseWaiting.push(done)
          extra.signal.addEventListener("abort", done)
        }))
      server.registerTool(
        "grow",
        { description: "Registers a new tool and says the list changed.", inputSchema: { name: z.string() } },
        async ({ name }, extra) => {
          server.registerTool(name, { description: `The grown tool ${name}.` }, () => text(`I am ${name}`))
          await extra.sendNotification({ method: "notifications/tools/list_changed" })
          return text(`grew ${name}`)
        }
      )
      server.registerTool(
        "ask_back",
        { description: "Pings the client from within the call.", inputSchema: { requests: z.number().int().min(0) } },
        ({ requests }, extra) => {
          for (let sent = 0; sent < requests; sent++) {
            // Not awaited: the client may never answer; the session's close rejects what is pending.
            extra.sendRequest({ method: "ping" }, EmptyResultSchema).catch(() => undefined)
          }
          return text(`asked ${requests}`)
        }
      )
      return server
    }

    const handle = async (request: IncomingMessage, response: ServerResponse) => {
      const raw = request.method === "POST" ? await readBody(request) : ""
      const body = parse(raw)
      const { id, method, tool } = describe(body)
      const header = request.headers["mcp-session-id"]
      const sessionId = typeof header === "string" ? header : undefined
      const record = (answeredBy: SeenRequest["answeredBy"]) =>
        seen.push({ httpMethod: request.method ?? "", rpcMethod: method, tool, sessionId, answeredBy })

      const status = injected.shift()
      if (status !== undefined) {
        record("injected")
        response.writeHead(status, { "content-type": "text/plain" }).end(`injected HTTP ${status}`)
        return
      }
      if (method === "tools/call" && rpcErrors.length > 0) {
        const error = rpcErrors.shift()
        record("injected")
        sendJson(response, 200, { jsonrpc: "2.0", id, error })
        return
      }
      if (sessionId !== undefined) {
        const transport = transports.get(sessionId)
        if (transport === undefined) {
          record("unknown-session")
          sendJson(response, 404, { jsonrpc: "2.0", id: null, error: { code: -32001, message: "Session not found" } })
          return
        }
        record("sdk")
        await transport.handleRequest(request, response, body)
        return
      }
      if (request.method === "POST" && isInitializeRequest(body)) {
        record("sdk")
        const hold = initializeHolds.shift()
        if (hold !== undefined) await hold
        const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse: options.jsonResponse ?? false,
          ...(options.resumable === true ? { eventStore: new InMemoryEventStore() } : {}),
          onsessioninitialized: (id) => {
            transports.set(id, transport)
          }
        })
        transport.onclose = () => {
          const id = transport.sessionId
          if (id !== undefined) transports.delete(id)
        }
        await newSdkServer().connect(transport)
        await transport.handleRequest(request, response, body)
        return
      }
      record("bad-request")
      sendJson(response, 400, { jsonrpc: "2.0", id: null, error: { code: -32000, message: "Bad Request: no valid session id" } })
    }

    const node: Server = createServer((request, response) => {
      handle(request, response).catch((error: unknown) => {
        if (!response.headersSent) sendJson(response, 500, { error: String(error) })
        else response.end()
      })
    })
    yield* Effect.async<void>((resume) => {
      node.listen(options.port ?? 0, "127.0.0.1", () => resume(Effect.void))
    })
    // listen(0, host) on TCP always yields an AddressInfo, never a pipe path or null.
    const port = (node.address() as AddressInfo).port

    const release = () => {
      const waiting = releaseWaiting
      releaseWaiting = []
      for (const done of waiting) done()
    }

    const closeSessions = Effect.promise(async () => {
      const open = [...transports.values()]
      transports.clear()
      await Promise.allSettled(open.map((transport) => transport.close()))
    })

    let stopped = false
    const stop = Effect.suspend(() => {
      if (stopped) return Effect.void
      stopped = true
      release()
      return Effect.zipRight(
        closeSessions,
        Effect.async<void>((resume) => {
          node.close(() => resume(Effect.void))
          node.closeAllConnections()
        })
      )
    })
    yield* Effect.addFinalizer(() => stop)

    return {
      url: `http://127.0.0.1:${port}/mcp`,
      requests: Effect.sync(() => [...seen]),
      count: (rpcMethod, tool) =>
        Effect.sync(() => seen.filter((r) => r.rpcMethod === rpcMethod && (tool === undefined || r.tool === tool)).length),
      sessions: Effect.sync(() => transports.size),
      forgetSessions: closeSessions,
      failNext: (times, status) => Effect.sync(() => injected.push(...Array.from({ length: times }, () => status))),
      rpcErrorNext: (code, message) => Effect.sync(() => rpcErrors.push({ code, message })),
      holdNextInitialize: Effect.sync(() => {
        let open = () => {}
        const hold = new Promise<void>((resolve) => {
          open = resolve
        })
        initializeHolds.push(hold)
        releaseWaiting.push(open) // `releaseSlow` and `stop` open it too
        return Effect.sync(open)
      }),
      growUnprompted: (name) =>
        Effect.sync(() => {
          for (const server of sdkServers) server.registerTool(name, { description: `The grown tool ${name}.` }, () => text(`I am ${name}`))
        }),
      releaseSlow: Effect.sync(release),
      stop
    } satisfies SdkServer
  })

/** A loopback URL on which nothing listens (a port that was free a moment ago). */
export const deadUrl: Effect.Effect<string> = Effect.async<string>((resume) => {
  const probe = createServer()
  probe.listen(0, "127.0.0.1", () => {
    // As above: a TCP listener's address is an AddressInfo.
    const port = (probe.address() as AddressInfo).port
    probe.close(() => resume(Effect.succeed(`http://127.0.0.1:${port}/mcp`)))
  })
})
