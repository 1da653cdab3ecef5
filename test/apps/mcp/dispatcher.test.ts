/**
 * The MCP dispatcher as a pure function of the registry: one JSON-RPC
 * message in, its reply out, with no transport in between.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Schema, TestClock } from "effect"
import { datetime, McpDispatcher, Tool, ToolRegistryLive } from "easyai"
import { type JsonRpcResponse, ToolsCallResult, ToolsListResult } from "../../../src/domain/mcp.js"
import packageJson from "../../../package.json" with { type: "json" }
import { callParams, initializeParams, rpcNotification, rpcRequest, specVersions } from "../../support/mcp.js"
import { field } from "../../support/server.js"
import { echo, named } from "../../support/tools.js"

/** A registry holding `tools`, in order. */
const registryOf = (tools: ReadonlyArray<Tool.Tool>) => ToolRegistryLive.make({ tools })

/** A dispatcher over a registry of `tools`. */
const dispatcherOf = (tools: ReadonlyArray<Tool.Tool>, options: McpDispatcher.DispatcherOptions = {}) =>
  Effect.map(registryOf(tools), (registry) => McpDispatcher.make(registry, options))

/** Sorts a parsed message and hands it to the dispatcher, as a transport does. */
const ask = (dispatcher: McpDispatcher.Dispatcher, message: unknown): Effect.Effect<JsonRpcResponse | undefined> =>
  Either.match(McpDispatcher.classify(message), { onLeft: Effect.succeed, onRight: dispatcher.handle })

/** Parses text, sorts it and hands it to the dispatcher, as a transport does. */
const askText = (dispatcher: McpDispatcher.Dispatcher, text: string): Effect.Effect<JsonRpcResponse | undefined> =>
  Either.match(McpDispatcher.classifyText(text), { onLeft: Effect.succeed, onRight: dispatcher.handle })

/** The reply to a request: there must be one. */
const replyTo = (dispatcher: McpDispatcher.Dispatcher, message: unknown) =>
  Effect.map(ask(dispatcher, message), (reply) => {
    if (reply === undefined) throw new Error("a request got no reply")
    return reply
  })

/** The result of a successful reply, checked to carry no error and to echo `id`. */
const resultOf = (reply: JsonRpcResponse, id: number | string): unknown => {
  expect(reply.jsonrpc).toBe("2.0")
  expect(reply.id).toBe(id)
  expect(reply.error).toBeUndefined()
  return reply.result
}

/** The error object of a failed reply. */
const errorOf = (reply: JsonRpcResponse | undefined) => {
  expect(reply?.jsonrpc).toBe("2.0")
  expect(reply?.result).toBeUndefined()
  expect(reply?.error).toBeDefined()
  return { id: reply?.id, code: reply?.error?.code, message: reply?.error?.message ?? "" }
}

const decodeList = Schema.decodeUnknownSync(ToolsListResult)
const decodeCall = Schema.decodeUnknownSync(ToolsCallResult)

/** `tools/call` and its decoded result. */
const callTool = (dispatcher: McpDispatcher.Dispatcher, name: string, args?: Readonly<Record<string, unknown>>) =>
  Effect.map(replyTo(dispatcher, rpcRequest(7, "tools/call", callParams(name, args))), (reply) => {
    const result = resultOf(reply, 7)
    return { raw: result, ...decodeCall(result) }
  })

/** The one text content item of a `tools/call` result. */
const textOf = (
  result: { readonly content?: ReadonlyArray<{ readonly type: string; readonly text?: string | undefined }> | undefined }
): string => {
  expect(result.content).toHaveLength(1)
  expect(result.content?.[0]?.type).toBe("text")
  return result.content?.[0]?.text ?? ""
}

/** A tool named `evaluate` (the real one needs a sandbox); its presence alone changes `initialize`. */
const fakeEvaluate = Tool.make({
  name: "evaluate",
  description: "Evaluate Python.",
  parameters: Schema.Struct({ code: Schema.String }),
  handler: () => Effect.succeed("ok")
})

/** A tool carrying every annotation. */
const annotated = Tool.make({
  name: "write_note",
  description: "Write a note.\nOverwrites a note of the same name.\nRequired: name, body.",
  parameters: Schema.Struct({ name: Schema.String, body: Schema.String }),
  annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  handler: () => Effect.succeed("written")
})

/** Five tools, for pagination. */
const five = [named("t1"), named("t2"), named("t3"), named("t4"), named("t5")]

/** 2026-04-25T10:20:49.750Z, a Saturday. */
const instant = Date.UTC(2026, 3, 25, 10, 20, 49, 750)

describe("classify / classifyText", () => {
  it("sorts requests, notifications and replies", () => {
    expect(McpDispatcher.classify(rpcRequest(1, "ping"))).toEqual(Either.right({ _tag: "Request", id: 1, method: "ping", params: undefined }))
    expect(McpDispatcher.classify(rpcRequest("a", "tools/list", { cursor: null }))).toEqual(
      Either.right({ _tag: "Request", id: "a", method: "tools/list", params: { cursor: null } })
    )
    expect(McpDispatcher.classify(rpcNotification("notifications/initialized"))).toEqual(
      Either.right({ _tag: "Notification", method: "notifications/initialized" })
    )
    expect(McpDispatcher.classify({ jsonrpc: "2.0", id: 3, result: {} })).toEqual(Either.right({ _tag: "Reply" }))
    expect(McpDispatcher.classify({ jsonrpc: "2.0", id: 3, error: { code: 1, message: "x" } })).toEqual(Either.right({ _tag: "Reply" }))
  })

  it("refuses a batch with -32600 and a message that says to send one message per request", () => {
    const refused = McpDispatcher.classify([rpcRequest(1, "ping"), rpcRequest(2, "ping")])
    if (Either.isRight(refused)) throw new Error("a batch was accepted")
    const error = errorOf(refused.left)
    expect(error.id).toBeNull()
    expect(error.code).toBe(-32600)
    expect(error.message).toContain("batch requests are not supported")
    expect(error.message).toContain("one JSON-RPC message per request")
  })

  it("refuses jsonrpc 1.0 with -32600, keeping the id it could read", () => {
    const refused = McpDispatcher.classify({ jsonrpc: "1.0", id: 9, method: "ping" })
    if (Either.isRight(refused)) throw new Error("jsonrpc 1.0 was accepted")
    const error = errorOf(refused.left)
    expect(error.code).toBe(-32600)
    expect(error.id).toBe(9)
    expect(error.message).toContain("not a JSON-RPC 2.0 request")
    expect(error.message).toContain("\"1.0\"")
  })

  it("refuses what is not a request: no method, a null id, a bare value", () => {
    for (const message of [{ jsonrpc: "2.0", id: 1 }, { jsonrpc: "2.0", id: null, method: "ping" }, { jsonrpc: "2.0", id: 1, method: 5 }, 42, "ping", null]) {
      const refused = McpDispatcher.classify(message)
      expect(Either.isLeft(refused)).toBe(true)
      if (Either.isLeft(refused)) expect(refused.left.error?.code).toBe(-32600)
    }
  })

  it("answers text that is not JSON with -32700 and a null id", () => {
    for (const text of ["{bad", "", "{\"jsonrpc\":\"2.0\",", "nul"]) {
      const refused = McpDispatcher.classifyText(text)
      if (Either.isRight(refused)) throw new Error(`${JSON.stringify(text)} was accepted`)
      const error = errorOf(refused.left)
      expect(error.code).toBe(-32700)
      expect(error.id).toBeNull()
      expect(error.message).toMatch(/^parse error: /)
    }
  })

  it("answers a 100 000-deep array with -32700, without overflowing the stack", () => {
    const deep = "[".repeat(100_000) + "]".repeat(100_000)
    const refused = McpDispatcher.classifyText(deep)
    if (Either.isRight(refused)) throw new Error("the deep array was accepted")
    expect(refused.left.error?.code).toBe(-32700)
    expect(refused.left.error?.message).toContain("nests deeper than 256 levels")
    // The same depth inside a request's params is refused the same way, before any object is built.
    const wrapped = `{"jsonrpc":"2.0","id":1,"method":"ping","params":${deep}}`
    const alsoRefused = McpDispatcher.classifyText(wrapped)
    expect(Either.isLeft(alsoRefused) ? alsoRefused.left.error?.code : undefined).toBe(-32700)
  })

  it("reads moderately nested params, and brackets inside strings do not count as nesting", () => {
    const params = { list: JSON.parse("[".repeat(200) + "]".repeat(200)), text: "[".repeat(1000) }
    const sorted = McpDispatcher.classifyText(JSON.stringify(rpcRequest(1, "tools/call", params)))
    expect(Either.isRight(sorted) ? sorted.right._tag : "refused").toBe("Request")
  })
})

describe("negotiateVersion", () => {
  it("echoes each version it speaks", () => {
    for (const version of specVersions) expect(McpDispatcher.negotiateVersion({ protocolVersion: version })).toBe(version)
  })

  it("answers anything else with the newest, 2025-11-25", () => {
    for (const params of [{ protocolVersion: "2099-01-01" }, { protocolVersion: "2024-10-07" }, { protocolVersion: 20250618 }, {}, undefined, null, "2025-06-18", ["2025-06-18"]]) {
      expect(McpDispatcher.negotiateVersion(params)).toBe("2025-11-25")
    }
  })
})

describe("initialize", () => {
  it.effect("answers each supported version with that version, the server's name and version, and the tools capability", () =>
    Effect.gen(function*() {
      const dispatcher = yield* dispatcherOf([echo])
      for (const version of specVersions) {
        const result = resultOf(yield* replyTo(dispatcher, rpcRequest(1, "initialize", initializeParams(version))), 1)
        expect(field(result, "protocolVersion")).toBe(version)
        expect(field(result, "serverInfo")).toEqual({ name: "easyai", version: packageJson.version })
        expect(field(result, "capabilities")).toEqual({ tools: { listChanged: false } })
      }
    }))

  it.effect("answers an unknown version with 2025-11-25", () =>
    Effect.gen(function*() {
      const dispatcher = yield* dispatcherOf([echo])
      const result = resultOf(yield* replyTo(dispatcher, rpcRequest("init", "initialize", initializeParams("1999-12-31"))), "init")
      expect(field(result, "protocolVersion")).toBe("2025-11-25")
    }))

  it.effect("gives no instructions without evaluate", () =>
    Effect.gen(function*() {
      const dispatcher = yield* dispatcherOf([echo, datetime])
      const result = resultOf(yield* replyTo(dispatcher, rpcRequest(1, "initialize", initializeParams())), 1)
      expect(result).not.toHaveProperty("instructions")
    }))

  it.effect("gives the write/edit policy as instructions when evaluate is registered", () =>
    Effect.gen(function*() {
      const dispatcher = yield* dispatcherOf([echo, fakeEvaluate])
      const instructions = field(resultOf(yield* replyTo(dispatcher, rpcRequest(1, "initialize", initializeParams())), 1), "instructions")
      expect(typeof instructions).toBe("string")
      expect(instructions).toContain("## Write/edit policy (AUTHORITATIVE)")
      expect(instructions).toContain("evaluate is READ-ONLY")
      // No file-writing tool is offered next to it, and the policy says so.
      expect(instructions).toContain("You have no file-writing tool")
    }))

  it.effect("names fs_write in the policy when it is offered next to evaluate", () =>
    Effect.gen(function*() {
      const dispatcher = yield* dispatcherOf([fakeEvaluate, named("fs_write")])
      const instructions = field(resultOf(yield* replyTo(dispatcher, rpcRequest(1, "initialize", initializeParams())), 1), "instructions")
      expect(instructions).toContain("To create or change a file, use fs_write.")
    }))

  it.effect("gives no instructions when the allow-list leaves evaluate out", () =>
    Effect.gen(function*() {
      const dispatcher = yield* dispatcherOf([echo, fakeEvaluate], { allow: new Set(["echo"]) })
      const result = resultOf(yield* replyTo(dispatcher, rpcRequest(1, "initialize", initializeParams())), 1)
      expect(result).not.toHaveProperty("instructions")
    }))
})

describe("ping", () => {
  it.effect("answers {} with the request's id", () =>
    Effect.gen(function*() {
      const dispatcher = yield* dispatcherOf([])
      expect(resultOf(yield* replyTo(dispatcher, rpcRequest(41, "ping")), 41)).toEqual({})
      expect(resultOf(yield* replyTo(dispatcher, rpcRequest("p", "ping", {})), "p")).toEqual({})
    }))
})

describe("tools/list", () => {
  it.effect("describes every tool: the full description, an object inputSchema, and no extras it lacks", () =>
    Effect.gen(function*() {
      const dispatcher = yield* dispatcherOf([echo, annotated, named("bare")])
      const raw = resultOf(yield* replyTo(dispatcher, rpcRequest(1, "tools/list")), 1)
      const list = decodeList(raw)
      expect(list.tools.map((tool) => tool.name)).toEqual(["echo", "write_note", "bare"])
      expect(list.nextCursor).toBeUndefined()
      const [echoTool, note, bare] = list.tools
      // The whole manual, not the one-line trigger.
      expect(echoTool?.description).toBe("Echo the text back.\nRequired: text.")
      expect(note?.description).toBe("Write a note.\nOverwrites a note of the same name.\nRequired: name, body.")
      expect(echoTool?.inputSchema).toMatchObject({
        type: "object",
        properties: { text: { type: "string" } },
        required: ["text"]
      })
      // A tool without parameters still has an object schema.
      expect(bare?.inputSchema).toEqual({ type: "object", properties: {} })
      // No annotations or output schema when the tool declares none.
      expect(field(raw, "tools", 0)).not.toHaveProperty("annotations")
      expect(field(raw, "tools", 0)).not.toHaveProperty("outputSchema")
    }))

  it.effect("maps the tool's annotations to MCP's hints", () =>
    Effect.gen(function*() {
      const dispatcher = yield* dispatcherOf([annotated, datetime])
      const list = decodeList(resultOf(yield* replyTo(dispatcher, rpcRequest(1, "tools/list")), 1))
      expect(list.tools[0]?.annotations).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false })
      // Only the hints the tool declares.
      expect(list.tools[1]?.annotations).toEqual({ readOnlyHint: true, openWorldHint: false })
    }))

  it.effect("gives datetime's outputSchema: an object with every field it returns", () =>
    Effect.gen(function*() {
      const dispatcher = yield* dispatcherOf([datetime])
      const tool = decodeList(resultOf(yield* replyTo(dispatcher, rpcRequest(1, "tools/list")), 1)).tools[0]
      expect(tool?.name).toBe("datetime")
      expect(tool?.outputSchema).toMatchObject({
        type: "object",
        properties: {
          utc: { type: "string" },
          local: { type: "string" },
          weekday: { type: "string" },
          timeZone: { type: "string" },
          offset: { type: "string" },
          unixTime: { type: "integer" }
        }
      })
      const required = field(tool?.outputSchema, "required")
      expect(required).toHaveLength(6)
      expect(required).toEqual(expect.arrayContaining(["utc", "local", "weekday", "timeZone", "offset", "unixTime"]))
      expect(tool?.inputSchema).toMatchObject({ type: "object", properties: { timezone: { type: "string", maxLength: 64 } } })
    }))

  it.effect("pages with nextCursor: following it to the end yields every tool once, in order", () =>
    Effect.gen(function*() {
      const dispatcher = yield* dispatcherOf(five, { pageSize: 2 })
      const pages: Array<ReadonlyArray<string>> = []
      let cursor: string | null | undefined = undefined
      for (let page = 0; page < 10; page++) {
        const params: Record<string, unknown> = cursor === undefined ? {} : { cursor }
        const list = decodeList(resultOf(yield* replyTo(dispatcher, rpcRequest(page, "tools/list", params)), page))
        pages.push(list.tools.map((tool) => tool.name))
        cursor = list.nextCursor
        if (cursor === undefined || cursor === null) break
      }
      expect(pages).toEqual([["t1", "t2"], ["t3", "t4"], ["t5"]])
      const all = pages.flat()
      expect(new Set(all).size).toBe(all.length)
    }))

  it.effect("gives no nextCursor when the last page is exactly full", () =>
    Effect.gen(function*() {
      const dispatcher = yield* dispatcherOf(five.slice(0, 4), { pageSize: 2 })
      const first = decodeList(resultOf(yield* replyTo(dispatcher, rpcRequest(1, "tools/list")), 1))
      expect(typeof first.nextCursor).toBe("string")
      const second = decodeList(resultOf(yield* replyTo(dispatcher, rpcRequest(2, "tools/list", { cursor: first.nextCursor })), 2))
      expect(second.tools.map((tool) => tool.name)).toEqual(["t3", "t4"])
      expect(second.nextCursor).toBeUndefined()
    }))

  it.effect("answers a cursor it never issued with -32602", () =>
    Effect.gen(function*() {
      const dispatcher = yield* dispatcherOf(five, { pageSize: 2 })
      for (const cursor of ["not-a-cursor", 12, { offset: 2 }, "", Buffer.from("offset:99", "utf8").toString("base64url")]) {
        const error = errorOf(yield* replyTo(dispatcher, rpcRequest(3, "tools/list", { cursor })))
        expect(error.id).toBe(3)
        expect(error.code).toBe(-32602)
        expect(error.message).toContain("invalid cursor")
      }
    }))
})

describe("tools/call", () => {
  it.effect("runs the tool and answers its text with isError false", () =>
    Effect.gen(function*() {
      const dispatcher = yield* dispatcherOf([echo])
      const result = yield* callTool(dispatcher, "echo", { text: "hello, MCP" })
      expect(result.isError).toBe(false)
      expect(textOf(result)).toBe("hello, MCP")
      expect(result.raw).not.toHaveProperty("structuredContent")
    }))

  it.effect("answers bad argument types with an isError result that teaches the correct call", () =>
    Effect.gen(function*() {
      const dispatcher = yield* dispatcherOf([echo])
      const wrongType = yield* callTool(dispatcher, "echo", { text: 5 })
      expect(wrongType.isError).toBe(true)
      const text = textOf(wrongType)
      expect(text).toContain("echo: invalid arguments: text: expected a string, got 5")
      expect(text).toContain("Parameters: text (string, required)")
      expect(text).toContain("Example call: echo(")
      const missing = yield* callTool(dispatcher, "echo", {})
      expect(missing.isError).toBe(true)
      expect(textOf(missing)).toContain("text: is missing")
      const extra = yield* callTool(dispatcher, "echo", { text: "x", loud: true })
      expect(extra.isError).toBe(true)
      expect(textOf(extra)).toContain("loud: is not a parameter of this tool")
    }))

  it.effect("treats absent or null arguments as {}", () =>
    Effect.gen(function*() {
      const dispatcher = yield* dispatcherOf([named("bare")])
      expect(textOf(yield* callTool(dispatcher, "bare"))).toBe("bare")
      const reply = resultOf(yield* replyTo(dispatcher, rpcRequest(2, "tools/call", { name: "bare", arguments: null })), 2)
      expect(field(reply, "isError")).toBe(false)
    }))

  it.effect("answers an unknown tool with an isError result, not a protocol error", () =>
    Effect.gen(function*() {
      const dispatcher = yield* dispatcherOf([echo])
      const result = yield* callTool(dispatcher, "ecko", { text: "x" })
      expect(result.isError).toBe(true)
      expect(textOf(result)).toContain("unknown tool: ecko")
      expect(textOf(result)).toContain("echo")
    }))

  it.effect("answers a call without a tool name with -32602", () =>
    Effect.gen(function*() {
      const dispatcher = yield* dispatcherOf([echo])
      for (const params of [undefined, {}, { name: "" }, { name: 3 }, "echo"]) {
        const error = errorOf(yield* replyTo(dispatcher, rpcRequest(5, "tools/call", params)))
        expect(error.code).toBe(-32602)
        expect(error.id).toBe(5)
        expect(error.message).toContain("params.name")
      }
    }))

  it.effect("returns datetime's data as structuredContent, matching the text", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(instant)
      const dispatcher = yield* dispatcherOf([datetime])
      const result = yield* callTool(dispatcher, "datetime", { timezone: "America/Sao_Paulo" })
      expect(result.isError).toBe(false)
      expect(result.structuredContent).toEqual({
        utc: "2026-04-25T10:20:49Z",
        local: "2026-04-25T07:20:49-03:00",
        weekday: "Saturday",
        timeZone: "America/Sao_Paulo",
        offset: "-03:00",
        unixTime: 1777112449
      })
      expect(textOf(result)).toContain("UTC:       2026-04-25T10:20:49Z (Saturday)")
      expect(textOf(result)).toContain("Unix time: 1777112449")
    }))

  it.effect("gives no structuredContent with an error result", () =>
    Effect.gen(function*() {
      const dispatcher = yield* dispatcherOf([datetime])
      const result = yield* callTool(dispatcher, "datetime", { timezone: "Europe/Berln" })
      expect(result.isError).toBe(true)
      expect(textOf(result)).toContain("Europe/Berlin")
      expect(result.raw).not.toHaveProperty("structuredContent")
    }))

  it.effect("turns a handler defect into an isError result", () =>
    Effect.gen(function*() {
      const broken = Tool.make({ name: "broken", description: "Breaks.", handler: () => Effect.die(new Error("kaput")) })
      const dispatcher = yield* dispatcherOf([broken])
      const result = yield* callTool(dispatcher, "broken")
      expect(result.isError).toBe(true)
      expect(textOf(result)).toContain("kaput")
    }))
})

describe("the allow-list", () => {
  const hiddenNames = ["datetime", "secret_tool", "write_note"]
  const registered = [echo, datetime, named("secret_tool"), annotated]

  /** Whether `text` names any hidden tool. */
  const revealsHidden = (text: string) => hiddenNames.filter((name) => text.includes(name))

  it.effect("hides the tools it leaves out from tools/list", () =>
    Effect.gen(function*() {
      const dispatcher = yield* dispatcherOf(registered, { allow: new Set(["echo"]) })
      const list = decodeList(resultOf(yield* replyTo(dispatcher, rpcRequest(1, "tools/list")), 1))
      expect(list.tools.map((tool) => tool.name)).toEqual(["echo"])
    }))

  it.effect("makes a call to a hidden tool unknown, without naming any hidden tool", () =>
    Effect.gen(function*() {
      const dispatcher = yield* dispatcherOf(registered, { allow: new Set(["echo"]) })
      for (const name of ["datetime", "write_note"]) {
        const result = yield* callTool(dispatcher, name, {})
        expect(result.isError).toBe(true)
        const text = textOf(result)
        expect(text).toContain(`unknown tool: ${name}`)
        expect(text).toContain("tools/list")
        expect(revealsHidden(text.replace(`unknown tool: ${name}`, ""))).toEqual([])
      }
      // A near miss of a hidden tool suggests nothing hidden; a near miss of an offered one suggests it.
      const nearHidden = yield* callTool(dispatcher, "datetim", {})
      expect(revealsHidden(textOf(nearHidden))).toEqual([])
      const nearOffered = yield* callTool(dispatcher, "ecko", { text: "x" })
      expect(textOf(nearOffered)).toContain("Did you mean echo?")
      // The offered tool still works.
      expect(textOf(yield* callTool(dispatcher, "echo", { text: "still here" }))).toBe("still here")
    }))

  it.effect("with an empty allow-list offers nothing", () =>
    Effect.gen(function*() {
      const dispatcher = yield* dispatcherOf(registered, { allow: new Set() })
      expect(decodeList(resultOf(yield* replyTo(dispatcher, rpcRequest(1, "tools/list")), 1)).tools).toEqual([])
      const result = yield* callTool(dispatcher, "echo", { text: "x" })
      expect(result.isError).toBe(true)
    }))

  // A name on the allow-list that is not registered (a typo in the list) is unknown without hinting at hidden tools.
  it.effect("an allowed name that is not registered reveals no hidden tool either", () =>
    Effect.gen(function*() {
      const dispatcher = yield* dispatcherOf(registered, { allow: new Set(["echo", "datetimes"]) })
      const result = yield* callTool(dispatcher, "datetimes", {})
      expect(result.isError).toBe(true)
      expect(revealsHidden(textOf(result).replace("unknown tool: datetimes", ""))).toEqual([])
    }))
})

describe("everything else", () => {
  it.effect("gives notifications and replies no answer", () =>
    Effect.gen(function*() {
      const dispatcher = yield* dispatcherOf([echo])
      expect(yield* ask(dispatcher, rpcNotification("notifications/initialized"))).toBeUndefined()
      expect(yield* ask(dispatcher, rpcNotification("notifications/cancelled", { requestId: 1 }))).toBeUndefined()
      // A notification naming a method never answers, even one that would as a request.
      expect(yield* ask(dispatcher, rpcNotification("tools/call", callParams("echo", { text: "x" })))).toBeUndefined()
      expect(yield* ask(dispatcher, rpcNotification("no/such/method"))).toBeUndefined()
      expect(yield* ask(dispatcher, { jsonrpc: "2.0", id: 5, result: {} })).toBeUndefined()
    }))

  it.effect("answers an unknown method with -32601, naming it", () =>
    Effect.gen(function*() {
      const dispatcher = yield* dispatcherOf([echo])
      for (const method of ["resources/list", "prompts/get", "tools/delete", ""]) {
        const error = errorOf(yield* replyTo(dispatcher, rpcRequest("m", method)))
        expect(error.id).toBe("m")
        expect(error.code).toBe(-32601)
        expect(error.message).toBe(`method not found: ${method}`)
      }
    }))

  it.effect("answers malformed JSON, a batch, jsonrpc 1.0 and a 100 000-deep array over text, and then still serves", () =>
    Effect.gen(function*() {
      const dispatcher = yield* dispatcherOf([echo])
      expect(errorOf(yield* askText(dispatcher, "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": ")).code).toBe(-32700)
      const batch = errorOf(yield* askText(dispatcher, JSON.stringify([rpcRequest(1, "ping")])))
      expect(batch.code).toBe(-32600)
      expect(batch.message).toContain("batch")
      expect(errorOf(yield* askText(dispatcher, "{\"jsonrpc\":\"1.0\"}")).code).toBe(-32600)
      expect(errorOf(yield* askText(dispatcher, "[".repeat(100_000) + "]".repeat(100_000))).code).toBe(-32700)
      const ping = yield* askText(dispatcher, JSON.stringify(rpcRequest(2, "ping")))
      expect(ping).toEqual({ jsonrpc: "2.0", id: 2, result: {} })
    }))
})
