/**
 * Exhausting `easyai serve` and `easyai mcp`: hundreds of MCP tool calls at
 * once over HTTP, a body that trickles in, more connections than one
 * client should hold, and a stdio line of hundreds of MiB. Each attack is
 * replayed against the real programs over loopback sockets and pipes.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Mailbox, Queue, Stream } from "effect"
import { readdirSync } from "node:fs"
import * as path from "node:path"
import { rpcRequest } from "../support/mcp.js"
import { startTs } from "../support/process.js"
import { jsonOf, openSocket, receiveUntilClosed, send, statusOf } from "../support/rawHttp.js"
import { startMcp, startServeSmall } from "../support/programProcess.js"
import { field } from "../support/server.js"
import { tempDir } from "../support/tempDir.js"

const mcpHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream" }

/** `tools/call` of bash running `command`. */
const bashCall = (id: number, command: string) =>
  JSON.stringify(rpcRequest(id, "tools/call", { name: "bash", arguments: { command } }))

/**
 * A call that marks that it ran (`marks/ID`), counts the calls running
 * with it (each holds `running/ID` while it runs) and prints the count, then
 * holds its place for two seconds.
 */
const countingCall = (id: number) =>
  `mkdir -p marks running && touch marks/${id} running/${id} && echo running=$(ls running | wc -l) && sleep 2; rm -f running/${id}`

/**
 * Sends `count` counting calls at once, from ten source addresses so no
 * one client passes its connection cap. Returns the replies and how many
 * calls ran.
 */
const flood = (port: number, sandbox: string, count: number) =>
  Effect.gen(function*() {
    const replies = yield* Effect.forEach(
      Array.from({ length: count }, (_, id) => id),
      (id) =>
        send({
          port,
          method: "POST",
          path: "/mcp",
          headers: mcpHeaders,
          body: bashCall(id, countingCall(id)),
          localAddress: `127.0.0.${1 + (id % 10)}`
        }),
      { concurrency: "unbounded" }
    )
    const marks = readdirSync(path.join(sandbox, "marks"))
    return { replies, ran: marks.length }
  })

const expectAdmissionLimit = (result: Effect.Effect.Success<ReturnType<typeof flood>>) => {
  const answered = result.replies.filter((reply) => reply.status === 200)
  const refused = result.replies.filter((reply) => reply.status === 503)
  expect(answered.length + refused.length).toBe(result.replies.length)
  expect(answered.length).toBeGreaterThan(0)
  expect(refused.length).toBeGreaterThan(0)
  // However the calls were spread in time, no call ever saw more than 16 running, itself included.
  const seen = answered.map((reply) => Number(/running=\s*(\d+)/.exec(String(field(jsonOf(reply), "result", "content", 0, "text")))?.[1]))
  expect(seen.every((count) => count >= 1 && count <= 16), seen.join(",")).toBe(true)
  // A refused call never ran: exactly the answered ones left their mark.
  expect(result.ran).toBe(answered.length)
  for (const reply of refused) {
    expect(reply.headers["retry-after"]).toBe("1")
    expect(field(jsonOf(reply), "error", "code")).toBe(-32000)
  }
}

describe("MCP over HTTP runs at most as many calls at once as over stdio", () => {
  it.scopedLive("easyai mcp: of 200 concurrent bash calls, at most 16 run at once; the rest get 503 with Retry-After and never run", () =>
    Effect.gen(function*() {
      const sandbox = tempDir()
      const { port } = yield* startMcp("--no-sessions", "--sandbox", sandbox, "--allow-bash", "--tools", "bash")
      expectAdmissionLimit(yield* flood(port, sandbox, 200))
      // Once the calls are done, the server answers again.
      const after = yield* send({ port, method: "POST", path: "/mcp", headers: mcpHeaders, body: bashCall(999, "echo ok") })
      expect(after.status).toBe(200)
    }), { timeout: 120_000 })

  it.scopedLive("easyai serve's /mcp: the same limit on its /mcp route", () =>
    Effect.gen(function*() {
      const sandbox = tempDir()
      const { port } = yield* startServeSmall("--sandbox", sandbox, "--allow-bash")
      // serve keeps sessions: open one first.
      const initialized = yield* send({
        port,
        method: "POST",
        path: "/mcp",
        headers: mcpHeaders,
        body: JSON.stringify(rpcRequest(0, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } }))
      })
      const session = String(initialized.headers["mcp-session-id"])
      const replies = yield* Effect.forEach(
        Array.from({ length: 200 }, (_, id) => id),
        (id) =>
          send({
            port,
            method: "POST",
            path: "/mcp",
            headers: { ...mcpHeaders, "mcp-session-id": session },
            body: bashCall(id, countingCall(id)),
            localAddress: `127.0.0.${1 + (id % 10)}`
          }),
        { concurrency: "unbounded" }
      )
      expectAdmissionLimit({ replies, ran: readdirSync(path.join(sandbox, "marks")).length })
    }), { timeout: 120_000 })
})

/** Headers of a POST whose body of `length` bytes will trickle in. */
const trickleHead = (port: number, target: string, length: number) =>
  `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: ${length}\r\n\r\n`

/** Sends the headers, then a byte every 100 ms (at most 100 of them), and returns what came back and when. */
const trickle = (port: number, target: string) =>
  Effect.scoped(Effect.gen(function*() {
    const socket = yield* openSocket(port)
    const received = receiveUntilClosed(socket, 20)
    const started = Date.now()
    socket.write(trickleHead(port, target, 1000))
    const dripping = yield* Effect.forkScoped(Effect.forEach(Array.from({ length: 100 }), () =>
      Effect.zipRight(Effect.sleep("100 millis"), Effect.sync(() => socket.destroyed || socket.write(" ")))))
    const raw = yield* received
    yield* Fiber.interrupt(dripping)
    return { raw, seconds: (Date.now() - started) / 1000 }
  }))

describe("a request body must arrive within the body deadline", () => {
  it.scopedLive("easyai serve --body-timeout 1: a trickling body is cut with 408 and the server keeps serving", () =>
    Effect.gen(function*() {
      const { port } = yield* startServeSmall("--no-tools", "--body-timeout", "1")
      const cut = yield* trickle(port, "/v1/chat/completions")
      expect(statusOf(cut.raw)).toBe(408)
      expect(cut.seconds).toBeLessThan(5)
      // The server still serves.
      expect((yield* send({ port, path: "/health" })).status).toBe(200)
    }), { timeout: 120_000 })

  it.scopedLive("easyai mcp --body-timeout 1: a trickling body is cut with 408; a reply slower than the deadline is not", () =>
    Effect.gen(function*() {
      const sandbox = tempDir()
      const { port } = yield* startMcp("--no-sessions", "--body-timeout", "1", "--sandbox", sandbox, "--allow-bash", "--tools", "bash")
      const cut = yield* trickle(port, "/mcp")
      expect(statusOf(cut.raw)).toBe(408)
      expect(cut.seconds).toBeLessThan(5)
      // Only the request is bounded: a call that takes longer than the deadline is answered.
      const slow = yield* send({ port, method: "POST", path: "/mcp", headers: mcpHeaders, body: bashCall(1, "sleep 2; echo done") })
      expect(slow.status).toBe(200)
      expect(field(jsonOf(slow), "result", "isError")).toBe(false)
    }), { timeout: 120_000 })
})

describe("one client address holds at most so many connections", () => {
  /** Whether a fresh connection from `localAddress` is closed without an answer to its request. */
  const refused = (port: number, localAddress: string) =>
    Effect.scoped(Effect.gen(function*() {
      const socket = yield* openSocket(port, localAddress)
      const received = receiveUntilClosed(socket, 10)
      socket.write(`GET /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`)
      return statusOf(yield* received) === 0
    }))

  const holdsCap = (port: number, cap: number) =>
    Effect.gen(function*() {
      const held = yield* Effect.forEach(Array.from({ length: cap }), () => openSocket(port, "127.0.0.1"))
      expect(yield* refused(port, "127.0.0.1")).toBe(true)
      // Another client is not affected.
      expect(yield* refused(port, "127.0.0.2")).toBe(false)
      // The held connections still work.
      const first = held[0]
      if (first === undefined) throw new Error("no connection held")
      const answer = receiveUntilClosed(first, 10)
      first.write(`GET /health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`)
      expect(statusOf(yield* answer)).toBe(200)
      // With one closed, the client may connect again (the server sees the close asynchronously: bounded retries).
      let admitted = false
      for (let attempt = 0; attempt < 50 && !admitted; attempt++) {
        admitted = !(yield* refused(port, "127.0.0.1"))
        if (!admitted) yield* Effect.sleep("20 millis")
      }
      expect(admitted).toBe(true)
    })

  it.scopedLive("easyai serve: the 33rd connection from one address is closed by default", () =>
    Effect.gen(function*() {
      const { port } = yield* startServeSmall("--no-tools")
      yield* holdsCap(port, 32)
    }), { timeout: 120_000 })

  it.scopedLive("easyai mcp --max-client-connections 4: the 5th is closed", () =>
    Effect.gen(function*() {
      const { port } = yield* startMcp("--max-client-connections", "4")
      yield* holdsCap(port, 4)
    }), { timeout: 120_000 })
})

describe("MCP over stdio refuses an over-long line as soon as it passes the cap", () => {
  it.scopedLive("a 12 MiB line is answered while it is still being sent, and the next request is served", () =>
    Effect.gen(function*() {
      const process = yield* startTs("src/programs/cli/main.ts", "mcp", "--stdio", "--tools", "datetime")
      const input = yield* Mailbox.make<Uint8Array>()
      yield* Stream.run(Mailbox.toStream(input), process.stdin).pipe(Effect.forkScoped)
      const replies = yield* Queue.unbounded<string>()
      yield* process.stdout.pipe(
        Stream.decodeText(),
        Stream.splitLines,
        Stream.runForEach((line) => Queue.offer(replies, line)),
        Effect.forkScoped
      )
      const nextReply = Queue.take(replies).pipe(
        Effect.timeoutFail({ duration: "60 seconds", onTimeout: () => new Error("no reply on stdout") }),
        Effect.map((line): unknown => JSON.parse(line))
      )
      const mebibyte = new Uint8Array(1024 * 1024).fill(0x61)
      // 9 MiB of one line (the cap is 8 Mi characters), no newline yet.
      for (let sent = 0; sent < 9; sent++) yield* input.offer(mebibyte)
      const refusal = yield* nextReply
      expect(field(refusal, "error", "code")).toBe(-32600)
      expect(String(field(refusal, "error", "message"))).toContain("longer than")
      // The rest of the same line is dropped as it comes, with no second reply.
      for (let sent = 0; sent < 3; sent++) yield* input.offer(mebibyte)
      yield* input.offer(new TextEncoder().encode(`\n${JSON.stringify(rpcRequest(7, "ping"))}\n`))
      expect(yield* nextReply).toEqual({ jsonrpc: "2.0", id: 7, result: {} })
      yield* input.end
      expect(Number(yield* process.exitCode.pipe(Effect.timeout("30 seconds")))).toBe(0)
    }), { timeout: 120_000 })
})
