/**
 * The web tools as a way into internal networks: a prompt-injected model,
 * or a web page read through a user's server, asks web_fetch / web_search
 * for loopback, the LAN or cloud metadata and reads the reply. Every
 * attack here runs against the real tools (their own undici agent, real
 * sockets on loopback, the real ToolRegistry call path) or the real CLI,
 * and must now be refused before any request reaches the target.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Option } from "effect"
import { Buffer } from "node:buffer"
import { subscribe, unsubscribe } from "node:diagnostics_channel"
import type { LookupAddress } from "node:dns"
import { writeFileSync } from "node:fs"
import { createServer as createTcpServer, type LookupFunction } from "node:net"
import * as path from "node:path"
import { ToolCall, ToolRegistryLive } from "easyai"
import { ScriptedChatModel } from "easyai/testing"
import { makeAddressPolicy, parseNetwork } from "../../src/layers/tools/web/addressPolicy.js"
import type { WebOptions } from "../../src/layers/tools/web/options.js"
import { webTools } from "../../src/layers/tools/web/webTools.js"
import { connectionsSoon, type Handler, loopbackServer } from "../support/loopbackServer.js"
import { callParams, initializeParams, rpcNotification, rpcRequest } from "../support/mcp.js"
import { post } from "../support/mcp.js"
import { startMcp } from "../support/programProcess.js"
import { runCli } from "../support/process.js"
import { field, send, served } from "../support/server.js"
import { tempDir } from "../support/tempDir.js"

const secret: Handler = (_req, res) => {
  res.writeHead(200, { "content-type": "text/plain" }).end("SECRET internal data")
}

/** A server that answers every request with a secret, as an internal service would. */
const internal = (host = "127.0.0.1", port?: number) =>
  loopbackServer(secret, { host, ...(port === undefined ? {} : { port }) })

/** The web tools behind a real registry; `run` calls one as the model would and returns the result. */
const registryWith = (options: WebOptions = {}) =>
  Effect.gen(function*() {
    const tools = yield* webTools({ fetchTimeout: "5 seconds", ...options })
    const registry = yield* ToolRegistryLive.make({ mode: "split", tools })
    let id = 0
    return (name: string, args: Readonly<Record<string, unknown>>) =>
      registry.call(new ToolCall({ id: `call_${++id}`, name, arguments: JSON.stringify(args) }))
  })

/**
 * Counts the client TCP sockets this process opens while `effect` runs
 * (Node publishes each on the `net.client.socket` channel).
 */
const countingSockets = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const seen = { count: 0 }
      const onSocket = () => {
        seen.count++
      }
      subscribe("net.client.socket", onSocket)
      return { seen, onSocket }
    }),
    ({ seen }) => Effect.map(effect, (value) => ({ value, sockets: seen.count })),
    ({ onSocket }) => Effect.sync(() => unsubscribe("net.client.socket", onSocket))
  )

/** A resolver the test controls: each call answers the next of `answers` (the last one repeats). */
const scriptedLookup = (answers: ReadonlyArray<string>) => {
  const asked: Array<string> = []
  const lookup: LookupFunction = (hostname, options, callback) => {
    asked.push(hostname)
    const address = answers[Math.min(asked.length - 1, answers.length - 1)] ?? "203.0.113.1"
    const family = address.includes(":") ? 6 : 4
    if (options.all === true) {
      const all: Array<LookupAddress> = [{ address, family }]
      callback(null, all)
    } else {
      callback(null, address, family)
    }
  }
  return { lookup, asked }
}

const refusedText = (address: string, kind: string) =>
  `refused: ${address} is ${kind}; the web tools reach public internet addresses only`

/** Whether ::1 can be bound here (some containers have no IPv6 loopback). */
const ipv6Loopback = Effect.scoped(Effect.match(loopbackServer(undefined, { host: "::1" }), {
  onFailure: () => false,
  onSuccess: () => true
}))

describe("web_fetch cannot reach loopback", () => {
  it.scopedLive("refuses every spelling of the local host, and the server sees no connection", () =>
    Effect.gen(function*() {
      const server = yield* internal()
      const call = yield* registryWith()
      const p = server.port
      const forms: ReadonlyArray<readonly [string, string]> = [
        [`http://127.0.0.1:${p}/`, refusedText("127.0.0.1", "a loopback address")],
        [`http://127.0.0.2:${p}/`, refusedText("127.0.0.2", "a loopback address")],
        [`http://2130706433:${p}/`, refusedText("127.0.0.1", "a loopback address")],
        [`http://0x7f.1:${p}/`, refusedText("127.0.0.1", "a loopback address")],
        [`http://127.1:${p}/`, refusedText("127.0.0.1", "a loopback address")],
        [`http://017700000001:${p}/`, refusedText("127.0.0.1", "a loopback address")],
        [`http://[::ffff:127.0.0.1]:${p}/`, refusedText("::ffff:7f00:1", "a loopback address")],
        [`http://[::ffff:7f00:1]:${p}/`, refusedText("::ffff:7f00:1", "a loopback address")],
        [`http://[::127.0.0.1]:${p}/`, refusedText("::7f00:1", "an IPv4-compatible address")],
        [`http://[64:ff9b::7f00:1]:${p}/`, refusedText("64:ff9b::7f00:1", "a loopback address (through NAT64)")],
        [`http://0.0.0.0:${p}/`, refusedText("0.0.0.0", "an unspecified (this-network) address")],
        [`http://[::]:${p}/`, refusedText("::", "the unspecified address")],
        [`http://[::1]:${p}/`, refusedText("::1", "a loopback address")]
      ]
      const { sockets, value: results } = yield* countingSockets(
        Effect.forEach(forms, ([url]) => call("web_fetch", { url }))
      )
      forms.forEach(([url, text], i) => {
        expect(results[i], url).toMatchObject({ isError: true, content: `web_fetch: ${text}` })
      })
      // IP literals are refused before a socket exists.
      expect(sockets).toBe(0)
      expect(server.connections()).toBe(0)
      expect(server.hits).toEqual([])
    }), { timeout: 60_000 })

  it.scopedLive("refuses localhost after its lookup: the server sees no connection", () =>
    Effect.gen(function*() {
      const server = yield* internal()
      const call = yield* registryWith()
      const result = yield* call("web_fetch", { url: `http://localhost:${server.port}/` })
      expect(result.isError).toBe(true)
      expect(result.content).toMatch(
        /^web_fetch: refused: localhost is (127\.0\.0\.1|::1), a loopback address; the web tools reach public internet addresses only$/
      )
      expect(server.connections()).toBe(0)
      expect(server.hits).toEqual([])
    }), { timeout: 60_000 })

  it.scopedLive("refuses [::1] when the machine has IPv6 loopback, and the server there sees nothing", () =>
    Effect.gen(function*() {
      if (!(yield* ipv6Loopback)) {
        // Without ::1 the literal is still refused before connecting (the test above), which is what matters.
        expect(makeAddressPolicy([]).check("::1")).toEqual({ refused: true, kind: "a loopback address" })
        return
      }
      const server = yield* internal("::1")
      const call = yield* registryWith()
      const result = yield* call("web_fetch", { url: `${server.base}/` })
      expect(result).toMatchObject({ isError: true, content: `web_fetch: ${refusedText("::1", "a loopback address")}` })
      expect(server.connections()).toBe(0)
    }), { timeout: 60_000 })

  it.scopedLive("refuses a search engine's base URL on loopback: configuration does not open the network", () =>
    Effect.gen(function*() {
      const server = yield* internal()
      const call = yield* registryWith({ baseUrls: { bing: `${server.base}/bing` }, engines: ["bing"] })
      const result = yield* call("web_search", { query: "anything", engine: "bing" })
      expect(result.isError).toBe(true)
      expect(result.content).toContain(`bing: ${refusedText("127.0.0.1", "a loopback address")}`)
      expect(server.connections()).toBe(0)
    }), { timeout: 60_000 })
})

describe("web_fetch cannot reach private, link-local, metadata or other reserved networks", () => {
  it.scopedLive("refuses the literal addresses before any socket is opened", () =>
    Effect.gen(function*() {
      const targets: ReadonlyArray<readonly [string, string, string]> = [
        ["http://169.254.169.254/latest/meta-data/", "169.254.169.254", "a cloud metadata address"],
        ["http://[::ffff:169.254.169.254]/latest/meta-data/", "::ffff:a9fe:a9fe", "a cloud metadata address"],
        ["http://[64:ff9b::a9fe:a9fe]/", "64:ff9b::a9fe:a9fe", "a cloud metadata address (through NAT64)"],
        ["http://[fd00:ec2::254]/latest/meta-data/", "fd00:ec2::254", "a cloud metadata address"],
        ["http://100.100.100.200/latest/meta-data/", "100.100.100.200", "a cloud metadata address"],
        ["http://169.254.170.2/v2/credentials", "169.254.170.2", "a cloud metadata address"],
        ["http://169.254.1.1/", "169.254.1.1", "a link-local address"],
        ["http://[fe80::1]/", "fe80::1", "a link-local address"],
        ["http://10.0.0.1/", "10.0.0.1", "a private address"],
        ["http://172.16.5.4:8080/", "172.16.5.4", "a private address"],
        ["http://172.31.255.255/", "172.31.255.255", "a private address"],
        ["http://192.168.1.1/admin", "192.168.1.1", "a private address"],
        ["http://[fd12:3456::1]/", "fd12:3456::1", "a private address"],
        ["http://[fc00::1]/", "fc00::1", "a private address"],
        ["http://100.64.0.1/", "100.64.0.1", "a shared (carrier-grade NAT) address"],
        ["http://224.0.0.251/", "224.0.0.251", "a multicast address"],
        ["http://[ff02::1]/", "ff02::1", "a multicast address"],
        ["http://255.255.255.255/", "255.255.255.255", "the broadcast address"],
        ["http://192.0.2.10/", "192.0.2.10", "a documentation address"],
        ["http://[2001:db8::1]/", "2001:db8::1", "a documentation address"],
        ["http://198.18.0.1/", "198.18.0.1", "a benchmarking address"],
        ["http://240.0.0.1/", "240.0.0.1", "a reserved address"],
        ["http://[2002:a00:1::]/", "2002:a00:1::", "a 6to4 tunnel address"]
      ]
      const call = yield* registryWith()
      const { sockets, value: results } = yield* countingSockets(
        Effect.forEach(targets, ([url]) => call("web_fetch", { url }))
      )
      targets.forEach(([url, address, kind], i) => {
        expect(results[i], url).toMatchObject({ isError: true, content: `web_fetch: ${refusedText(address, kind)}` })
      })
      expect(sockets).toBe(0)
    }), { timeout: 60_000 })

  it.live("lets public addresses through the policy, and an allowed network in", () =>
    Effect.sync(() => {
      const policy = makeAddressPolicy([])
      for (const address of ["93.184.216.34", "8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808", "172.32.0.1", "100.128.0.1"]) {
        expect(policy.check(address), address).toEqual({ refused: false })
      }
      const networks = ["10.1.0.0/16", "fd00::/8"].map((text) => Either.getOrThrow(parseNetwork(text)))
      const lan = makeAddressPolicy(networks)
      expect(lan.check("10.1.2.3")).toEqual({ refused: false })
      expect(lan.check("::ffff:10.1.2.3")).toEqual({ refused: false })
      expect(lan.check("10.2.0.1")).toEqual({ refused: true, kind: "a private address" })
      expect(lan.check("fd00:ec2::254")).toEqual({ refused: false })
      expect(lan.check("127.0.0.1")).toEqual({ refused: true, kind: "a loopback address" })
    }))
})

describe("allowed networks stay narrow", () => {
  it.scopedLive("an allowed 127.0.0.1 answers, but its redirect to 127.0.0.2 is refused and never reaches that server", () =>
    Effect.gen(function*() {
      const other = yield* internal("127.0.0.2")
      const allowed = yield* loopbackServer((req, res) => {
        if (req.url === "/page") res.writeHead(200, { "content-type": "text/plain" }).end("allowed page")
        else res.writeHead(302, { location: `${other.base}/` }).end()
      })
      const call = yield* registryWith({ allowNetworks: ["127.0.0.1/32"] })
      const page = yield* call("web_fetch", { url: `${allowed.base}/page` })
      expect(page.isError).toBe(false)
      expect(page.content).toContain("allowed page")
      const redirected = yield* call("web_fetch", { url: `${allowed.base}/go` })
      expect(redirected).toMatchObject({ isError: true, content: `web_fetch: ${refusedText("127.0.0.2", "a loopback address")}` })
      expect(allowed.hits).toEqual(["/page", "/go"])
      expect(other.connections()).toBe(0)
      expect(other.hits).toEqual([])
    }), { timeout: 60_000 })

  it.live("a bad network is a typed error that names it", () =>
    Effect.gen(function*() {
      for (const bad of ["nonsense", "10.0.0.0/33", "fd00::/129", "10.0.0.0/-1", "10.0.0.0/8/8", "example.com/24", ""]) {
        const built = yield* Effect.scoped(Effect.either(webTools({ allowNetworks: [bad] })))
        expect(Either.isLeft(built), JSON.stringify(bad)).toBe(true)
        if (Either.isLeft(built)) {
          expect(built.left._tag).toBe("InvalidNetwork")
          expect(built.left.message).toContain(`${JSON.stringify(bad)} is not a network`)
        }
      }
    }))
})

describe("DNS answers are checked where the socket connects", () => {
  it.scopedLive("a host name resolving to loopback is refused without dialling it", () =>
    Effect.gen(function*() {
      const server = yield* internal()
      const resolver = scriptedLookup(["127.0.0.1"])
      const call = yield* registryWith({ lookup: resolver.lookup })
      const result = yield* call("web_fetch", { url: `http://rebind.example:${server.port}/` })
      expect(result).toMatchObject({
        isError: true,
        content: `web_fetch: refused: rebind.example is 127.0.0.1, a loopback address; the web tools reach public internet addresses only`
      })
      expect(resolver.asked).toEqual(["rebind.example"])
      expect(server.connections()).toBe(0)
    }), { timeout: 60_000 })

  it.scopedLive("rebinding: the name answers an allowed address first and a refused one next; only the first is ever reached", () =>
    Effect.gen(function*() {
      // Each answer closes its connection, so the next request must connect (and resolve) again.
      const first = yield* loopbackServer((_req, res) => {
        res.writeHead(200, { "content-type": "text/plain", connection: "close" }).end("first answer")
      })
      const second = yield* internal("127.0.0.2", first.port)
      const resolver = scriptedLookup(["127.0.0.1", "127.0.0.2"])
      const call = yield* registryWith({ allowNetworks: ["127.0.0.1/32"], lookup: resolver.lookup })
      const url = `http://rebind.example:${first.port}/`
      const ok = yield* call("web_fetch", { url })
      expect(ok.content).toContain("first answer")
      const rebound = yield* call("web_fetch", { url })
      expect(rebound).toMatchObject({
        isError: true,
        content: `web_fetch: refused: rebind.example is 127.0.0.2, a loopback address; the web tools reach public internet addresses only`
      })
      expect(resolver.asked).toEqual(["rebind.example", "rebind.example"])
      expect(first.hits).toEqual(["/"])
      expect(second.connections()).toBe(0)
    }), { timeout: 60_000 })

  it.scopedLive("the connected peer is checked: an allowed answer (0.0.0.0) that lands on 127.0.0.1 is refused before the request", () =>
    Effect.gen(function*() {
      const server = yield* internal()
      // 0.0.0.0 passes the check on the lookup's answer, but the kernel connects it to the local host.
      const resolver = scriptedLookup(["0.0.0.0"])
      const call = yield* registryWith({ allowNetworks: ["0.0.0.0/32"], lookup: resolver.lookup })
      const byName = yield* call("web_fetch", { url: `http://elsewhere.example:${server.port}/` })
      expect(byName).toMatchObject({
        isError: true,
        content: `web_fetch: refused: elsewhere.example is 127.0.0.1, a loopback address; the web tools reach public internet addresses only`
      })
      const literal = yield* call("web_fetch", { url: `http://0.0.0.0:${server.port}/` })
      expect(literal).toMatchObject({
        isError: true,
        content: `web_fetch: refused: 0.0.0.0 is 127.0.0.1, a loopback address; the web tools reach public internet addresses only`
      })
      // The sockets did connect (the lookup's answer was allowed), yet no request was sent over them.
      expect(yield* connectionsSoon(server.connections, 2)).toBe(2)
      expect(server.hits).toEqual([])
      // Allowing the peer too lets the same request through: the refusal above was the peer check.
      const open = yield* registryWith({ allowNetworks: ["0.0.0.0/32", "127.0.0.1/32"], lookup: resolver.lookup })
      const reached = yield* open("web_fetch", { url: `http://elsewhere.example:${server.port}/` })
      expect(reached.content).toContain("SECRET internal data")
      expect(server.hits).toEqual(["/"])
    }), { timeout: 60_000 })
})

/** A plain TCP listener on 127.0.0.1 that records, per connection, the bytes it received before the client closed. */
const tcpListener = Effect.acquireRelease(
  Effect.async<{ server: ReturnType<typeof createTcpServer>; port: number; closed: Array<Buffer> }>((resume) => {
    const closed: Array<Buffer> = []
    const server = createTcpServer((socket) => {
      const chunks: Array<Buffer> = []
      socket.on("data", (chunk: Buffer) => {
        chunks.push(chunk)
        socket.destroy()
      })
      socket.on("error", () => {})
      socket.on("close", () => closed.push(Buffer.concat(chunks)))
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      resume(Effect.succeed({ server, port: typeof address === "object" && address !== null ? address.port : 0, closed }))
    })
  }),
  ({ server }) => Effect.async<void>((resume) => {
    server.close(() => resume(Effect.void))
  })
)

describe("https", () => {
  it.scopedLive("the peer is checked before the TLS handshake: a refused peer receives no byte", () =>
    Effect.gen(function*() {
      const listener = yield* tcpListener
      const call = yield* registryWith({ allowNetworks: ["0.0.0.0/32"] })
      const refused = yield* call("web_fetch", { url: `https://0.0.0.0:${listener.port}/` })
      expect(refused).toMatchObject({
        isError: true,
        content: `web_fetch: refused: 0.0.0.0 is 127.0.0.1, a loopback address; the web tools reach public internet addresses only`
      })
      expect(yield* connectionsSoon(() => listener.closed.length, 1)).toBe(1)
      expect(listener.closed[0]?.length).toBe(0)
      // Allowed, the same connection carries a TLS ClientHello (a handshake record, 0x16): the refusal came first.
      // One attempt: a failed handshake is otherwise asked again, and this counts the connections.
      const open = yield* registryWith({ allowNetworks: ["0.0.0.0/32", "127.0.0.1/32"], fetchRetries: 0 })
      const handshake = yield* open("web_fetch", { url: `https://0.0.0.0:${listener.port}/` })
      expect(handshake.isError).toBe(true)
      expect(handshake.content).toContain(`could not fetch https://0.0.0.0:${listener.port}/`)
      expect(yield* connectionsSoon(() => listener.closed.length, 2)).toBe(2)
      expect(listener.closed[1]?.[0]).toBe(0x16)
    }), { timeout: 60_000 })
})

describe("the programs", () => {
  it.live("a bad --web-allow is refused in one line by the CLI, before anything loads", () =>
    Effect.gen(function*() {
      const cwd = tempDir()
      const bad = yield* runCli({ cwd }, "tools", "--web-allow", "nonsense")
      expect(bad.exitCode).toBe(2)
      expect(bad.stdout).toBe("")
      expect(bad.stderr).toBe(
        `easyai tools: --web-allow: "nonsense" is not a network: "nonsense" is not an IPv4 or IPv6 address (give CIDRs such as 192.168.1.0/24 or fd00::/8)`
      )
      const prefix = yield* runCli({ cwd }, "mcp", "--web-allow", "10.0.0.0/8,10.0.0.0/40")
      expect(prefix.exitCode).toBe(2)
      expect(prefix.stderr).toBe(
        `easyai mcp: --web-allow: "10.0.0.0/40" is not a network: the prefix length must be a whole number from 0 to 32 (give CIDRs such as 192.168.1.0/24 or fd00::/8)`
      )
      writeFileSync(path.join(cwd, "easyai.ini"), "[cli]\nweb_allow = 10.0.0.0/8, nonsense\n")
      const cli = yield* runCli({ cwd }, "mcp", "--stdio")
      expect(cli.exitCode).toBe(2)
      expect(cli.stderr).toBe(
        `easyai mcp: easyai.ini:2: [cli] web_allow: "nonsense" is not a network: "nonsense" is not an IPv4 or IPv6 address (give CIDRs such as 192.168.1.0/24 or fd00::/8)`
      )
      writeFileSync(path.join(cwd, "easyai.ini"), "[SERVER]\nweb_allow = 127.0.0.1/32\nweb_allow[] = 300.0.0.0/8\n")
      const server = yield* runCli({ cwd }, "serve", "--model", "missing.gguf")
      expect(server.exitCode).toBe(2)
      expect(server.stderr).toContain(`[SERVER] web_allow:`)
      const fine = yield* runCli({ cwd: tempDir() }, "tools", "--web-allow", "10.0.0.0/8,fd00::/8")
      expect(fine.exitCode).toBe(0)
      expect(fine.stdout).toContain("web_fetch")
    }), { timeout: 120_000 })

  it.live("a server whose web tools may reach a private network admits no page from another origin by default", () =>
    Effect.gen(function*() {
      for (const origin of ["https://evil.example", "http://localhost:5173"]) {
        const read = yield* send("GET", "/v1/models", { headers: { origin } })
        expect(read.status).toBe(200)
        expect(read.headers["access-control-allow-origin"]).toBeUndefined()
        const drive = yield* send("POST", "/v1/chat/completions", {
          headers: { origin, "content-type": "text/plain" },
          body: JSON.stringify({ messages: [{ role: "user", content: "fetch http://10.0.0.1/" }] })
        })
        expect(drive.status).toBe(403)
      }
    }).pipe(Effect.provide(served({ model: ScriptedChatModel.layer([]), web: { allowNetworks: ["10.0.0.0/8"] } }))))

  it.scopedLive("a real easyai mcp refuses web_fetch on loopback by default and reaches it with --web-allow", () =>
    Effect.gen(function*() {
      const server = yield* internal()
      const fetchOver = (port: number) =>
        Effect.gen(function*() {
          const url = `http://127.0.0.1:${port}/mcp`
          const initialized = yield* post(url, rpcRequest(1, "initialize", initializeParams()))
          const session = { "mcp-session-id": initialized.session ?? "" }
          yield* post(url, rpcNotification("notifications/initialized"), session)
          const called = yield* post(url, rpcRequest(2, "tools/call", callParams("web_fetch", { url: `${server.base}/` })), session)
          return {
            isError: field(called.body, "result", "isError"),
            text: Option.getOrElse(Option.fromNullable(field(called.body, "result", "content", 0, "text")), () => "")
          }
        })
      const closed = yield* startMcp()
      const refused = yield* fetchOver(closed.port)
      expect(refused).toEqual({ isError: true, text: `web_fetch: ${refusedText("127.0.0.1", "a loopback address")}` })
      expect(server.connections()).toBe(0)
      const opened = yield* startMcp("--web-allow", "127.0.0.1/32")
      const reached = yield* fetchOver(opened.port)
      expect(reached.isError).toBe(false)
      expect(reached.text).toContain("SECRET internal data")
      expect(server.hits).toEqual(["/"])
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)), { timeout: 120_000 })
})
