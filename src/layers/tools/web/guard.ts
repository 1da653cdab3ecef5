/**
 * The web tools' connection policy, enforced where the connection is made:
 * an undici connector that opens every TCP connection itself and checks
 * the address three times, before any byte of the request (or of a TLS
 * handshake) is sent —
 *
 * 1. an IP-literal host (`http://127.0.0.1/`, `http://[::1]/`) before
 *    connecting, since no lookup happens for it;
 * 2. each address the host name resolves to, inside the socket's own
 *    lookup, so a refused one is never even dialled;
 * 3. the peer address of the connected socket, which is the one that
 *    counts: a lookup answer that changes between a check and the connect
 *    (DNS rebinding), or an address the kernel routes elsewhere
 *    (`0.0.0.0` is the local host), cannot slip through.
 *
 * HTTPS is layered on the checked socket afterwards. Redirects are new
 * requests, so each goes through the same connector.
 *
 * @module
 */
import { NodeHttpClient } from "@effect/platform-node"
import type { HttpClient } from "@effect/platform"
import { Effect, type Scope } from "effect"
import type { LookupAddress } from "node:dns"
import { lookup as dnsLookup } from "node:dns"
import { connect, isIP, type LookupFunction } from "node:net"
import { Agent, buildConnector } from "undici"
import { transformed } from "../../http/HttpClientLive.js"
import type { AddressPolicy } from "./addressPolicy.js"
import { AddressRefused } from "./errors.js"

/** Time allowed to open a TCP connection, as undici allows by default. */
const connectTimeoutMs = 10_000

/** The TLS step, over a socket already connected and checked. */
const tlsOver = buildConnector({ timeout: connectTimeoutMs })

const refusal = (policy: AddressPolicy, host: string, address: string): AddressRefused | undefined => {
  const verdict = policy.check(address)
  return verdict.refused ? new AddressRefused({ host, address, kind: verdict.kind }) : undefined
}

/**
 * `resolve` with its answers checked: refused addresses are dropped, and
 * when none is left the lookup fails with the first refusal.
 */
export const checkedLookup = (policy: AddressPolicy, resolve: LookupFunction): LookupFunction => (hostname, options, callback) =>
  resolve(hostname, options, (error, answer, family) => {
    if (error !== null) return callback(error, answer, family)
    const answers: ReadonlyArray<LookupAddress> = typeof answer === "string"
      ? [{ address: answer, family: family ?? isIP(answer) }]
      : answer
    const allowed = answers.filter(({ address }) => refusal(policy, hostname, address) === undefined)
    const first = answers[0]
    if (allowed.length === 0 || first === undefined) {
      const refused = first === undefined ? undefined : refusal(policy, hostname, first.address)
      const failure = refused ?? Object.assign(new Error(`${hostname} resolved to no address`), { code: "ENOTFOUND" })
      return callback(failure, typeof answer === "string" ? "" : [])
    }
    if (typeof answer === "string") return callback(null, answer, family)
    return callback(null, [...allowed])
  })

/**
 * An undici connector that connects only where `policy` allows, checking
 * the literal host, the lookup's answers and the connected peer.
 */
export const guardedConnector = (policy: AddressPolicy, resolve: LookupFunction): buildConnector.connector => {
  const lookup = checkedLookup(policy, resolve)
  return (options, callback) => {
    const host = options.hostname
    if (isIP(host) !== 0) {
      const refused = refusal(policy, host, host)
      if (refused !== undefined) return callback(refused, null)
    }
    const https = options.protocol === "https:"
    const port = options.port === "" ? (https ? 443 : 80) : Number(options.port)
    let settled = false
    const settle = (...args: buildConnector.CallbackArgs) => {
      if (settled) return
      settled = true
      callback(...args)
    }
    const socket = connect({ host, port, lookup, ...(options.localAddress ? { localAddress: options.localAddress } : {}) })
    const onTimeout = () => socket.destroy(new Error(`connect timed out after ${connectTimeoutMs} ms`))
    socket.setTimeout(connectTimeoutMs).once("timeout", onTimeout)
    socket.once("error", (error) => settle(error, null))
    socket.once("connect", () => {
      socket.setTimeout(0).off("timeout", onTimeout)
      const peer = socket.remoteAddress ?? ""
      const refused = refusal(policy, host, peer === "" ? "(no peer address)" : peer)
      if (refused !== undefined) {
        socket.destroy()
        return settle(refused, null)
      }
      socket.setNoDelay(true).setKeepAlive(true, 60_000)
      if (!https) return settle(null, socket)
      // From here the TLS connector reports the outcome; the listener above stays, a no-op, so a late error is handled.
      settled = true
      tlsOver({ ...options, httpSocket: socket }, callback)
    })
  }
}

/**
 * An `HttpClient` whose every connection goes through {@link guardedConnector}:
 * its own undici agent, closed with the scope, then the HTTP stack's
 * `TransformClient` (a recorder or tracer sees the requests; the connections
 * under it keep the policy). It is built once per set of web tools, because
 * the policy is a property of the connections themselves and no shared agent
 * can carry it.
 */
export const guardedClient = (
  policy: AddressPolicy,
  resolve: LookupFunction = dnsLookup
): Effect.Effect<HttpClient.HttpClient, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => new Agent({ connect: guardedConnector(policy, resolve) })),
    (agent) => Effect.promise(() => agent.destroy())
  ).pipe(Effect.flatMap((agent) => transformed(NodeHttpClient.makeUndici(agent))))
