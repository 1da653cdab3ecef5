import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Fiber, Layer, Option, TestClock } from "effect"
import {
  McpClient,
  McpServerApp,
  type McpServerConfig,
  ServerLive,
  Session,
  SessionStack,
  type Tool,
  ToolCall,
  ToolRegistry,
  ToolRegistryLive
} from "easyai"
import { ScriptedChatModel } from "easyai/testing"
import * as SdkMcpServer from "../../support/sdkMcpServer.js"
import { echo, named } from "../../support/tools.js"

/** A real pause between polls of real state (works under the TestClock too). */
const pause = Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, 10)))

/** Polls `check` until it holds, at most ~5 s of real time. */
const eventually = <R>(what: string, check: Effect.Effect<boolean, never, R>): Effect.Effect<void, never, R> =>
  Effect.gen(function*() {
    for (let poll = 0; poll < 500; poll++) {
      if (yield* check) return
      yield* pause
    }
    return yield* Effect.die(new Error(`timed out waiting until ${what}`))
  })

interface StackOptions {
  readonly retries?: number
  readonly timeoutSeconds?: number
  readonly tools?: ReadonlyArray<Tool.Tool>
  readonly turns?: ReadonlyArray<ScriptedChatModel.Turn>
}

/** The session stack with `servers` configured; the scripted model's recorder is exposed too. */
const stack = (servers: ReadonlyArray<McpServerConfig>, options: StackOptions = {}) => {
  const model = ScriptedChatModel.layer(options.turns ?? [])
  return Layer.merge(
    SessionStack.layer({
      model,
      session: { withDefaultTools: false, tools: options.tools ?? [echo] },
      mcp: {
        servers,
        retries: options.retries ?? 0,
        ...(options.timeoutSeconds === undefined ? {} : { timeoutSeconds: options.timeoutSeconds })
      }
    }),
    model
  )
}

let ids = 0
/** Calls a tool through the registry, as the agent does. */
const call = (name: string, args: unknown = {}) =>
  Effect.flatMap(ToolRegistry, (registry) =>
    registry.call(new ToolCall({ id: `call_t${++ids}`, name, arguments: JSON.stringify(args) })))

const has = (name: string) => Effect.flatMap(ToolRegistry, (registry) => registry.has(name))

/** Once the client holds the server's GET stream open (so an injected failure meets the next call, not that GET). */
const listening = (server: SdkMcpServer.SdkServer) =>
  eventually("the GET stream is open", Effect.map(server.requests, (all) => all.some((r) => r.httpMethod === "GET")))

describe("McpClientLive against an MCP server built with the official SDK", () => {
  it.scopedLive("registers the server's tools as alias__tool and proxies calls (SSE replies)", () =>
    Effect.gen(function*() {
      const server = yield* SdkMcpServer.start()
      yield* Effect.gen(function*() {
        for (const name of ["sdk__echo", "sdk__add", "sdk__fail", "sdk__slow", "sdk__grow", "sdk__ask_back", "echo"]) {
          expect(yield* has(name)).toBe(true)
        }
        const said = yield* call("sdk__echo", { text: "hello over MCP" })
        expect(said.isError).toBe(false)
        expect(said.content).toBe("hello over MCP")

        const sum = yield* call("sdk__add", { a: 2, b: 3 })
        expect(sum.isError).toBe(false)
        expect(sum.content).toBe("5")
        expect(sum.structured).toEqual({ sum: 5 })

        const failed = yield* call("sdk__fail")
        expect(failed.isError).toBe(true)
        expect(failed.content).toBe("the fail tool failed, as asked")

        // The SDK validates the arguments: a bad one is an isError result, never a failure.
        const invalid = yield* call("sdk__add", { a: "two", b: 3 })
        expect(invalid.isError).toBe(true)

        // The spec the model sees keeps the server's schema, output schema and annotations.
        const specs = yield* Effect.flatMap(ToolRegistry, (registry) => registry.specs)
        const add = specs.find((spec) => spec.name === "sdk__add")
        expect(add?.description).toBe("Add two numbers.")
        expect(Object.keys(add?.parameters["properties"] ?? {})).toEqual(["a", "b"])
        expect(add?.outputSchema?.["properties"]).toHaveProperty("sum")
        expect(add?.annotations?.readOnly).toBe(true)

        // Every call went to the SDK over one session.
        const seen = yield* server.requests
        expect(seen.filter((request) => request.rpcMethod === "initialize")).toHaveLength(1)
        const calls = seen.filter((request) => request.rpcMethod === "tools/call")
        expect(calls.map((request) => request.tool)).toEqual(["echo", "add", "fail", "add"])
        expect(new Set(calls.map((request) => request.sessionId)).size).toBe(1)
        expect(calls.every((request) => request.answeredBy === "sdk")).toBe(true)
      }).pipe(Effect.provide(stack([{ url: server.url, alias: "sdk" }])))
      // Closing the stack ended the session (DELETE), and the SDK forgot it.
      expect((yield* server.requests).some((request) => request.httpMethod === "DELETE")).toBe(true)
      expect(yield* server.sessions).toBe(0)
    }))

  it.scopedLive("works the same against a server that answers in plain JSON", () =>
    Effect.gen(function*() {
      const server = yield* SdkMcpServer.start({ jsonResponse: true })
      yield* Effect.gen(function*() {
        const said = yield* call("json__echo", { text: "plain" })
        expect(said).toMatchObject({ isError: false, content: "plain" })
        const sum = yield* call("json__add", { a: 40, b: 2 })
        expect(sum.structured).toEqual({ sum: 42 })
        expect((yield* call("json__fail")).isError).toBe(true)
      }).pipe(Effect.provide(stack([{ url: server.url, alias: "json" }])))
    }))

  it.scopedLive("describes servers and tools: servers, tools, tool(alias.tool) and tool(alias__tool)", () =>
    Effect.gen(function*() {
      const server = yield* SdkMcpServer.start({ name: "third-party" })
      yield* Effect.gen(function*() {
        const mcp = yield* McpClient
        const servers = yield* mcp.servers
        expect(servers).toHaveLength(1)
        const [only] = servers
        expect(only?.alias).toBe("sdk")
        expect(only?.url).toBe(server.url)
        expect(only?.serverInfo).toBe("third-party 1.2.3")
        expect(only?.protocolVersion).toBe("2025-11-25")

        const tools = yield* mcp.tools
        expect(tools.map((tool) => tool.name).sort()).toEqual(["add", "ask_back", "echo", "fail", "grow", "slow"])
        expect(tools.every((tool) => tool.alias === "sdk" && tool.registeredAs === `sdk__${tool.name}`)).toBe(true)

        const byDisplay = yield* mcp.tool("sdk.echo")
        expect(Option.map(byDisplay, (tool) => tool.registeredAs)).toEqual(Option.some("sdk__echo"))
        expect(Option.map(byDisplay, (tool) => tool.description)).toEqual(Option.some("Echo the text back."))
        expect(Option.map(byDisplay, (tool) => Object.keys(tool.inputSchema["properties"] ?? {}))).toEqual(Option.some(["text"]))
        const byRegistered = yield* mcp.tool("sdk__echo")
        expect(Option.map(byRegistered, (tool) => tool.name)).toEqual(Option.some("echo"))
        expect(Option.isNone(yield* mcp.tool("echo"))).toBe(true) // the local echo is not an MCP tool
        expect(Option.isNone(yield* mcp.tool("sdk.nothing"))).toBe(true)
      }).pipe(Effect.provide(stack([{ url: server.url, alias: "sdk" }])))
    }))

  it.scopedLive("a JSON-RPC error reply to tools/call becomes an error result, not a failure", () =>
    Effect.gen(function*() {
      const server = yield* SdkMcpServer.start()
      yield* Effect.gen(function*() {
        yield* server.rpcErrorNext(-32601, "Method not found")
        const result = yield* call("sdk__echo", { text: "x" })
        expect(result.isError).toBe(true)
        expect(result.content).toContain("Method not found")
        expect(result.content).toContain("-32601")
        // The connection is fine afterwards.
        expect((yield* call("sdk__echo", { text: "after" })).content).toBe("after")
      }).pipe(Effect.provide(stack([{ url: server.url, alias: "sdk" }])))
    }))

  it.scopedLive("disconnect removes the server's tools; a later call is an unknown tool", () =>
    Effect.gen(function*() {
      const server = yield* SdkMcpServer.start()
      yield* Effect.gen(function*() {
        const mcp = yield* McpClient
        expect(yield* mcp.disconnect("sdk")).toBe(true)
        expect(yield* has("sdk__echo")).toBe(false)
        expect(yield* has("sdk__add")).toBe(false)
        expect(yield* has("echo")).toBe(true) // local tools stay
        const result = yield* call("sdk__echo", { text: "x" })
        expect(result.isError).toBe(true)
        expect(result.content).toContain("unknown tool: sdk__echo")
        expect(yield* mcp.servers).toEqual([])
        expect(yield* mcp.tools).toEqual([])
        expect(yield* mcp.disconnect("sdk")).toBe(false)
        // The session was ended on the server.
        expect((yield* server.requests).filter((request) => request.httpMethod === "DELETE")).toHaveLength(1)
        expect(yield* server.sessions).toBe(0)
      }).pipe(Effect.provide(stack([{ url: server.url, alias: "sdk" }])))
    }))

  it.scopedLive("connects a second server at runtime under another alias, and the alias can be reused after a disconnect", () =>
    Effect.gen(function*() {
      const first = yield* SdkMcpServer.start()
      const second = yield* SdkMcpServer.start({ jsonResponse: true, name: "second" })
      yield* Effect.gen(function*() {
        const mcp = yield* McpClient
        const connected = yield* mcp.connect({ url: second.url, alias: "two" })
        expect(connected.alias).toBe("two")
        expect(connected.serverInfo).toBe("second 1.2.3")
        expect(connected.tools.map((tool) => tool.registeredAs).sort()).toEqual([
          "two__add",
          "two__ask_back",
          "two__echo",
          "two__fail",
          "two__grow",
          "two__slow"
        ])
        expect((yield* call("two__echo", { text: "from two" })).content).toBe("from two")
        expect((yield* call("sdk__echo", { text: "from one" })).content).toBe("from one")
        expect((yield* mcp.servers).map((server) => server.alias)).toEqual(["sdk", "two"])
        expect(yield* second.count("tools/call", "echo")).toBe(1)
        expect(yield* first.count("tools/call", "echo")).toBe(1)

        expect(yield* mcp.disconnect("two")).toBe(true)
        const again = yield* mcp.connect({ url: first.url, alias: "two" })
        expect(again.serverInfo).toBe("sdk-test-server 1.2.3")
        expect((yield* call("two__echo", { text: "now first" })).content).toBe("now first")
        expect(yield* first.count("tools/call", "echo")).toBe(2)
      }).pipe(Effect.provide(stack([{ url: first.url, alias: "sdk" }])))
    }))

  it.scopedLive("an alias defaults to the URL's host and port", () =>
    Effect.gen(function*() {
      const server = yield* SdkMcpServer.start()
      const port = new URL(server.url).port
      yield* Effect.gen(function*() {
        const connected = yield* (yield* McpClient).connect({ url: server.url })
        expect(connected.alias).toBe(`127-0-0-1-${port}`)
        expect((yield* call(`127-0-0-1-${port}__echo`, { text: "by port" })).content).toBe("by port")
      }).pipe(Effect.provide(stack([])))
    }))

  it.scopedLive("refuses a duplicate alias, a bad URL, a non-HTTP URL, an invalid alias and an unreachable server", () =>
    Effect.gen(function*() {
      const server = yield* SdkMcpServer.start()
      const dead = yield* SdkMcpServer.deadUrl
      yield* Effect.gen(function*() {
        const mcp = yield* McpClient
        const failure = (config: McpServerConfig) => Effect.flip(mcp.connect(config))

        const duplicate = yield* failure({ url: server.url, alias: "sdk" })
        expect(duplicate._tag).toBe("McpError")
        expect(duplicate.reason).toBe("Config")
        expect(duplicate.message).toContain("already connected")

        expect((yield* failure({ url: "not a url", alias: "x" })).reason).toBe("Config")
        expect((yield* failure({ url: "ftp://127.0.0.1/mcp", alias: "x" })).reason).toBe("Config")
        for (const alias of ["bad_alias", "has.dot", "", "a".repeat(25)]) {
          const invalid = yield* failure({ url: server.url, alias })
          expect(invalid.reason).toBe("Config")
          expect(invalid.detail).toContain("alias")
        }

        const unreachable = yield* failure({ url: dead, alias: "down" })
        expect(unreachable.reason).toBe("Unreachable")
        expect(unreachable.server).toBe("down")

        // Nothing of the failures was registered, and the first server is untouched.
        expect((yield* mcp.servers).map((connected) => connected.alias)).toEqual(["sdk"])
        expect(yield* has("down__echo")).toBe(false)
        expect((yield* call("sdk__echo", { text: "still here" })).content).toBe("still here")
        expect(yield* server.count("initialize")).toBe(1)
      }).pipe(Effect.provide(stack([{ url: server.url, alias: "sdk" }])))
    }))

  it.scopedLive("a configured server that is down at start is skipped; the stack builds with the others", () =>
    Effect.gen(function*() {
      const server = yield* SdkMcpServer.start()
      const dead = yield* SdkMcpServer.deadUrl
      yield* Effect.gen(function*() {
        const mcp = yield* McpClient
        expect((yield* mcp.servers).map((connected) => connected.alias)).toEqual(["sdk"])
        expect(yield* has("down__echo")).toBe(false)
        expect((yield* call("sdk__echo", { text: "up" })).content).toBe("up")
        expect((yield* call("echo", { text: "local" })).content).toBe("local")
      }).pipe(Effect.provide(stack([{ url: dead, alias: "down" }, { url: server.url, alias: "sdk" }])))
    }))

  it.scopedLive("a local tool of the same name wins over a server connected at runtime", () =>
    Effect.gen(function*() {
      const server = yield* SdkMcpServer.start()
      yield* Effect.gen(function*() {
        const registry = yield* ToolRegistry
        yield* registry.add(named("docs__echo"))
        const connected = yield* (yield* McpClient).connect({ url: server.url, alias: "docs" })
        const remoteEcho = connected.tools.find((tool) => tool.name === "echo")
        expect(remoteEcho?.registeredAs).toBeUndefined()
        expect(connected.tools.find((tool) => tool.name === "add")?.registeredAs).toBe("docs__add")
        // The local tool answers, and the server never hears of the call.
        expect((yield* call("docs__echo")).content).toBe("docs__echo")
        expect(yield* server.count("tools/call")).toBe(0)
        // Disconnecting leaves the local tool alone.
        yield* (yield* McpClient).disconnect("docs")
        expect(yield* has("docs__echo")).toBe(true)
        expect(yield* has("docs__add")).toBe(false)
      }).pipe(Effect.provide(stack([])))
    }))

  // The session's own tools are registered before any MCP server's, so a local name always wins.
  it.scopedLive("a local session tool named exactly sdk__echo stays local; the remote echo is skipped", () =>
    Effect.gen(function*() {
      const server = yield* SdkMcpServer.start()
      const built = yield* Effect.either(Effect.gen(function*() {
        const remoteEcho = yield* (yield* McpClient).tool("sdk.echo")
        expect(Option.isSome(remoteEcho)).toBe(true)
        expect(Option.map(remoteEcho, (tool) => tool.registeredAs)).toEqual(Option.some(undefined))
        expect((yield* call("sdk__echo", {})).content).toBe("sdk__echo")
        expect((yield* call("sdk__add", { a: 1, b: 1 })).content).toBe("2")
        expect(yield* server.count("tools/call", "echo")).toBe(0)
      }).pipe(Effect.provide(stack([{ url: server.url, alias: "sdk" }], { tools: [echo, named("sdk__echo")] }))))
      expect(Either.isRight(built) ? "built" : `failed: ${JSON.stringify(built.left)}`).toBe("built")
    }))

  it.scopedLive("notifications/tools/list_changed inside a call's SSE reply re-reads the tools", () =>
    Effect.gen(function*() {
      const server = yield* SdkMcpServer.start()
      yield* Effect.gen(function*() {
        expect(yield* has("sdk__sprout")).toBe(false)
        const grew = yield* call("sdk__grow", { name: "sprout" })
        expect(grew).toMatchObject({ isError: false, content: "grew sprout" })
        yield* eventually("sdk__sprout is registered", has("sdk__sprout"))
        expect((yield* call("sdk__sprout")).content).toBe("I am sprout")
        const mcp = yield* McpClient
        expect(Option.map(yield* mcp.tool("sdk.sprout"), (tool) => tool.registeredAs)).toEqual(Option.some("sdk__sprout"))
        // The refresh kept the other tools.
        expect((yield* call("sdk__echo", { text: "kept" })).content).toBe("kept")
        // Once at connect, then at least once more: the SDK says it in the reply and, the GET stream being open, there too.
        expect(yield* server.count("tools/list")).toBeGreaterThanOrEqual(2)
      }).pipe(Effect.provide(stack([{ url: server.url, alias: "sdk" }])))
    }))

  it.scopedLive("notifications/tools/list_changed on the standalone GET stream re-reads the tools, no restart", () =>
    Effect.gen(function*() {
      const server = yield* SdkMcpServer.start()
      yield* Effect.gen(function*() {
        yield* listening(server)
        expect(yield* has("sdk__shoot")).toBe(false)
        yield* server.growUnprompted("shoot")
        yield* eventually("sdk__shoot is registered", has("sdk__shoot"))
        expect((yield* call("sdk__shoot")).content).toBe("I am shoot")
        expect(yield* server.count("tools/list")).toBe(2)
      }).pipe(Effect.provide(stack([{ url: server.url, alias: "sdk" }])))
    }))

  it.scopedLive("a configured server that is down costs about a second at start, and is connected in the background once up", () =>
    Effect.gen(function*() {
      const dead = yield* SdkMcpServer.deadUrl
      const port = Number(new URL(dead).port)
      const started = Date.now()
      yield* Effect.gen(function*() {
        // Built with the server down: the default five retries would take ~8 s; the start budget is 1 s.
        expect(Date.now() - started).toBeLessThan(4000)
        expect(yield* has("late__echo")).toBe(false)
        yield* SdkMcpServer.start({ port })
        yield* Effect.gen(function*() {
          for (let poll = 0; poll < 1500; poll++) {
            if (yield* has("late__echo")) return
            yield* pause
          }
          return yield* Effect.die(new Error("late__echo never registered"))
        })
        expect((yield* call("late__echo", { text: "up" })).content).toBe("up")
      }).pipe(Effect.provide(stack([{ url: dead, alias: "late" }], { retries: 5 })))
    }), { timeout: 60_000 })

  it.scopedLive("an expired session is re-initialized once, transparently", () =>
    Effect.gen(function*() {
      const server = yield* SdkMcpServer.start()
      yield* Effect.gen(function*() {
        expect((yield* call("sdk__echo", { text: "before" })).content).toBe("before")
        yield* server.forgetSessions
        expect(yield* server.sessions).toBe(0)
        const after = yield* call("sdk__echo", { text: "after" })
        expect(after).toMatchObject({ isError: false, content: "after" })
        expect(yield* server.count("initialize")).toBe(2)
        const seen = yield* server.requests
        expect(seen.filter((request) => request.answeredBy === "unknown-session").map((request) => request.tool)).toEqual(["echo"])
        // The retried call carried the new session.
        const echoes = seen.filter((request) => request.rpcMethod === "tools/call" && request.answeredBy === "sdk")
        expect(echoes).toHaveLength(2)
        expect(echoes[0]?.sessionId).not.toBe(echoes[1]?.sessionId)
        expect(yield* server.sessions).toBe(1)
      }).pipe(Effect.provide(stack([{ url: server.url, alias: "sdk" }])))
    }))

  // Calls in flight when the session expires share one re-initialization and are resent on the new session
  // (one stack's McpClient serves every chat of `easyai serve`, so concurrent calls are normal).
  it.scopedLive("concurrent calls on an expired session all succeed", () =>
    Effect.gen(function*() {
      const server = yield* SdkMcpServer.start()
      yield* Effect.gen(function*() {
        yield* server.forgetSessions
        const texts = ["a", "b", "c", "d"]
        const results = yield* Effect.forEach(texts, (text) => call("sdk__echo", { text }), { concurrency: "unbounded" })
        expect(results.map((result) => result.content)).toEqual(texts)
      }).pipe(Effect.provide(stack([{ url: server.url, alias: "sdk" }])))
    }))

  // A call started while the session is being re-initialized ends up on the new session.
  it.scopedLive("a call started while the session is being re-initialized uses the new session", () =>
    Effect.gen(function*() {
      const server = yield* SdkMcpServer.start()
      yield* Effect.gen(function*() {
        yield* server.forgetSessions
        const release = yield* server.holdNextInitialize
        const first = yield* Effect.fork(call("sdk__echo", { text: "first" }))
        yield* eventually("the client is re-initializing", Effect.map(server.count("initialize"), (n) => n === 2))
        const second = yield* Effect.fork(call("sdk__echo", { text: "second" }))
        // Give the second call up to ~1 s to reach the server (a fixed client may hold it until the session is back).
        for (let poll = 0; poll < 100 && (yield* server.count("tools/call", "echo")) < 2; poll++) yield* pause
        yield* release
        expect(yield* Fiber.join(first)).toMatchObject({ isError: false, content: "first" })
        expect(yield* Fiber.join(second)).toMatchObject({ isError: false, content: "second" })
      }).pipe(Effect.provide(stack([{ url: server.url, alias: "sdk" }])))
    }))

  it.scoped("a 503 before the SDK is retried after the 250 ms backoff, and the call succeeds", () =>
    Effect.gen(function*() {
      const server = yield* SdkMcpServer.start()
      yield* Effect.gen(function*() {
        yield* listening(server)
        yield* server.failNext(1, 503)
        const fiber = yield* Effect.fork(call("sdk__echo", { text: "second time lucky" }))
        // The retry waits on the TestClock: once the first attempt failed and the 250 ms sleep is pending, move time.
        yield* eventually(
          "the retry's 250 ms backoff is pending",
          Effect.gen(function*() {
            const now = yield* TestClock.currentTimeMillis
            const sleeps = yield* TestClock.sleeps()
            return [...sleeps].includes(now + 250)
          })
        )
        expect((yield* server.requests).filter((request) => request.rpcMethod === "tools/call").map((r) => r.answeredBy))
          .toEqual(["injected"])
        yield* TestClock.adjust("250 millis")
        const result = yield* Fiber.join(fiber)
        expect(result).toMatchObject({ isError: false, content: "second time lucky" })
        expect((yield* server.requests).filter((request) => request.rpcMethod === "tools/call").map((r) => r.answeredBy))
          .toEqual(["injected", "sdk"])
      }).pipe(Effect.provide(stack([{ url: server.url, alias: "sdk" }], { retries: 2 })))
    }))

  it.scopedLive("a 400 is not retried: one attempt, an error result", () =>
    Effect.gen(function*() {
      const server = yield* SdkMcpServer.start()
      yield* Effect.gen(function*() {
        yield* listening(server)
        yield* server.failNext(1, 400)
        const result = yield* call("sdk__echo", { text: "x" })
        expect(result.isError).toBe(true)
        expect(result.content).toContain("HTTP 400")
        expect(yield* server.count("tools/call")).toBe(1)
        // The next call goes through.
        expect((yield* call("sdk__echo", { text: "y" })).content).toBe("y")
        expect(yield* server.count("tools/call")).toBe(2)
      }).pipe(Effect.provide(stack([{ url: server.url, alias: "sdk" }], { retries: 1 })))
    }))

  it.scopedLive("a tool that never answers ends in an error result naming the timeout", () =>
    Effect.gen(function*() {
      const server = yield* SdkMcpServer.start()
      yield* Effect.gen(function*() {
        const started = Date.now()
        const result = yield* call("sdk__slow")
        const waited = Date.now() - started
        expect(result.isError).toBe(true)
        // SSE: the SDK starts the reply at once, so it is the body's inactivity timeout that fires.
        expect(result.content).toBe("sdk__slow: MCP server sdk: no data arrived for 1s (inactivity timeout)")
        expect(waited).toBeGreaterThanOrEqual(900)
        expect(waited).toBeLessThan(10_000)
        // The session survives the abandoned call.
        expect((yield* call("sdk__echo", { text: "still fine" })).content).toBe("still fine")
      }).pipe(
        Effect.provide(stack([{ url: server.url, alias: "sdk" }], { timeoutSeconds: 1 })),
        Effect.ensuring(server.releaseSlow)
      )
    }))

  // Documents the transport contract (retry.ts): a response that does not start within the timeout is
  // retried. For a JSON-answering server that means a hanging tools/call is sent again — a tool that is not
  // idempotent runs twice.
  it.scopedLive("against a JSON server a hanging call times out before the response starts, and is re-sent under retries", () =>
    Effect.gen(function*() {
      const server = yield* SdkMcpServer.start({ jsonResponse: true })
      yield* Effect.gen(function*() {
        const result = yield* call("json__slow")
        expect(result.isError).toBe(true)
        expect(result.content).toBe("json__slow: MCP server json: no response within 1s (after 2 attempts)")
        expect(yield* server.count("tools/call", "slow")).toBe(2)
      }).pipe(
        Effect.provide(stack([{ url: server.url, alias: "json" }], { timeoutSeconds: 1, retries: 1 })),
        Effect.ensuring(server.releaseSlow)
      )
    }))

  it.scopedLive("server-to-client requests met in a call's SSE reply are skipped on the way to the reply", () =>
    Effect.gen(function*() {
      const server = yield* SdkMcpServer.start()
      yield* Effect.gen(function*() {
        // The SDK numbers them 0 and 1; this call is the client's request 3 or later.
        const result = yield* call("sdk__ask_back", { requests: 2 })
        expect(result).toMatchObject({ isError: false, content: "asked 2" })
      }).pipe(Effect.provide(stack([{ url: server.url, alias: "sdk" }])))
    }))

  // MCP 2025-11-25 servers may start each SSE reply with a priming event (an `id:` and empty `data:`) for
  // resuming; it carries no message and is skipped.
  it.scopedLive("connects to an SDK server with resumable streams (a priming event with empty data starts each SSE reply)", () =>
    Effect.gen(function*() {
      const server = yield* SdkMcpServer.start({ resumable: true })
      yield* Effect.gen(function*() {
        const connected = yield* Effect.either((yield* McpClient).connect({ url: server.url, alias: "sdk" }))
        expect(Either.isRight(connected) ? "connected" : connected.left.message).toBe("connected")
        expect((yield* call("sdk__echo", { text: "resumable" })).content).toBe("resumable")
      }).pipe(Effect.provide(stack([])))
    }))

  // JSON-RPC ids are numbered per sender: a server's request (it has a `method`) carrying the same id as a
  // pending call is answered, never taken for the call's reply.
  it.scopedLive("a server request whose id equals the client's pending request id is not taken for the reply", () =>
    Effect.gen(function*() {
      const server = yield* SdkMcpServer.start()
      yield* Effect.gen(function*() {
        // The SDK numbers its pings 0..19: one of them carries the same id as this tools/call.
        const result = yield* call("sdk__ask_back", { requests: 20 })
        expect(result).toMatchObject({ isError: false, content: "asked 20" })
      }).pipe(Effect.provide(stack([{ url: server.url, alias: "sdk" }])))
    }))

  it.scopedLive("a server that dies mid-session: the next call is an error result, and the agent carries on", () =>
    Effect.gen(function*() {
      const server = yield* SdkMcpServer.start()
      yield* Effect.gen(function*() {
        expect((yield* call("sdk__echo", { text: "alive" })).content).toBe("alive")
        yield* server.stop
        const result = yield* call("sdk__echo", { text: "anyone?" })
        expect(result.isError).toBe(true)
        expect(result.content).toContain("MCP server sdk")
        expect((yield* call("echo", { text: "local still works" })).content).toBe("local still works")

        // A whole agent turn over the dead server: the model reads the error and answers.
        const turn = yield* Effect.flatMap(Session, (session) => session.chat("echo via the server"))
        expect(turn.text).toBe("The server is down.")
        const requests = yield* Effect.flatMap(ScriptedChatModel.ScriptedChatModel, (recorder) => recorder.requests)
        const toolMessage = requests[1]?.messages.find((message) => message._tag === "ToolMessage")
        expect(toolMessage?._tag === "ToolMessage" && toolMessage.isError).toBe(true)
        expect(toolMessage?._tag === "ToolMessage" ? toolMessage.content : "").toContain("MCP server sdk")
      }).pipe(Effect.provide(stack([{ url: server.url, alias: "sdk" }], {
        turns: [ScriptedChatModel.toolCall("sdk__echo", { text: "hi" }), ScriptedChatModel.reply("The server is down.")]
      })))
    }))

  it.scopedLive("easyai to easyai: our own standalone MCP app as the server", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistryLive.make({ tools: [echo] })
      const served = yield* McpServerApp.make().pipe(Effect.provideService(ToolRegistry, registry))
      const http = yield* ServerLive.serve(served, { port: 0, graceSeconds: 1 })
      const address = http.address
      if (address._tag !== "TcpAddress") return yield* Effect.die(new Error("expected a TCP address"))
      const url = `http://127.0.0.1:${address.port}/mcp`
      yield* Effect.gen(function*() {
        const [server] = yield* (yield* McpClient).servers
        expect(server?.alias).toBe("self")
        expect(server?.serverInfo).toMatch(/^easyai/)
        expect(server?.tools.map((tool) => tool.registeredAs)).toEqual(["self__echo"])
        const said = yield* call("self__echo", { text: "easyai talks to easyai" })
        expect(said).toMatchObject({ isError: false, content: "easyai talks to easyai" })
      }).pipe(Effect.provide(stack([{ url, alias: "self" }])))
    }))

  it.scopedLive("an agent uses a third-party MCP server's tools", () =>
    Effect.gen(function*() {
      const server = yield* SdkMcpServer.start()
      yield* Effect.gen(function*() {
        const turn = yield* Effect.flatMap(Session, (session) => session.chat("add 2 and 3"))
        expect(turn.text).toBe("5")
        const requests = yield* Effect.flatMap(ScriptedChatModel.ScriptedChatModel, (recorder) => recorder.requests)
        expect(requests).toHaveLength(2)
        expect(requests[0]?.tools.map((tool) => tool.name)).toContain("sdk__add")
        const toolMessages = (requests[1]?.messages ?? []).filter((message) => message._tag === "ToolMessage")
        expect(toolMessages).toHaveLength(1)
        expect(toolMessages[0]).toMatchObject({ name: "sdk__add", content: "5", isError: false })
        expect(yield* server.count("tools/call", "add")).toBe(1)
      }).pipe(Effect.provide(stack([{ url: server.url, alias: "sdk" }], {
        turns: [ScriptedChatModel.toolCall("sdk__add", { a: 2, b: 3 }), ScriptedChatModel.reply("5")]
      })))
    }))
})
