/**
 * Which `Host` headers a server answers, against DNS rebinding: a page on
 * another site whose name is made to resolve to this machine still sends
 * its own name as `Host`, so only the names this server is known by are
 * answered.
 *
 * Admitted by default: the address the server listens on (and the name it
 * was told to listen on); on loopback also `localhost`, `127.0.0.1` and
 * `[::1]`; on a wildcard address (`0.0.0.0`, `::`) any IP literal and
 * `localhost`. These match with no port or with the server's port. Names
 * the operator adds (`--allowed-hosts`) match with any port unless the
 * entry names one; `*` turns the check off. A request without `Host` is
 * refused: every HTTP/1.1 client and every browser sends one.
 *
 * @module
 */
import { Either } from "effect"
import { BlockList, isIP } from "node:net"

/** A host as a `Host` header names it: a lower-case name or IP literal (IPv6 in brackets), and the port if given. */
interface HostName {
  readonly hostname: string
  readonly port: number | undefined
}

/** Parses `name[:port]` with the WHATWG URL parser; anything beyond a host (user info, a path) is not a host. */
const parseHost = (text: string): HostName | undefined => {
  if (text === "" || /[/?#@\\\s]/.test(text)) return undefined
  try {
    const url = new URL(`http://${text}`)
    return { hostname: url.hostname, port: url.port === "" ? undefined : Number(url.port) }
  } catch {
    return undefined
  }
}

/** What a server knows about itself and what the operator adds. */
export interface HostRule {
  /** The address the socket is bound to, as the socket reports it (`127.0.0.1`, `::`, …). */
  readonly address: string
  /** The port the socket is bound to. */
  readonly port: number
  /** The address the operator asked to listen on, when it is a name (e.g. `localhost`). */
  readonly listenHost?: string
  /** Further names the operator admits (`name` or `name:port`); `*` admits any `Host`. */
  readonly allowedHosts?: ReadonlyArray<string>
}

const loopback = (): BlockList => {
  const list = new BlockList()
  list.addSubnet("127.0.0.0", 8, "ipv4")
  list.addAddress("::1", "ipv6")
  list.addSubnet("::ffff:127.0.0.0", 104, "ipv6")
  return list
}

/** An address as `Host` spells it: IPv6 in brackets. */
const asHostname = (address: string): string => (isIP(address) === 6 ? `[${address.toLowerCase()}]` : address.toLowerCase())

const unbracketed = (hostname: string): string => hostname.replace(/^\[(.*)\]$/, "$1")

/** How many distinct `Host` values a server remembers its verdict on. */
const maxRememberedHosts = 64

/** The test a server applies to each request's `Host` header, built once from `rule`. */
export const hostAdmitter = (rule: HostRule): (header: string | undefined) => boolean => {
  const extra = rule.allowedHosts ?? []
  if (extra.includes("*")) return () => true
  const family = isIP(rule.address)
  const wildcard = rule.address === "0.0.0.0" || rule.address === "::"
  const onLoopback = family !== 0 && loopback().check(rule.address, family === 6 ? "ipv6" : "ipv4")
  const own = new Set([asHostname(rule.address)])
  const listenName = rule.listenHost === undefined ? undefined : parseHost(rule.listenHost)
  if (listenName !== undefined) own.add(listenName.hostname)
  if (onLoopback || wildcard) for (const name of ["localhost", "127.0.0.1", "[::1]"]) own.add(name)
  const named = extra.map(parseHost).filter((entry): entry is HostName => entry !== undefined)
  const admits = (header: string): boolean => {
    const host = parseHost(header)
    if (host === undefined) return false
    const ownPort = host.port === undefined || host.port === rule.port
    if (ownPort && (own.has(host.hostname) || (wildcard && isIP(unbracketed(host.hostname)) !== 0))) return true
    return named.some((entry) => entry.hostname === host.hostname && (entry.port === undefined || entry.port === host.port))
  }
  // A client sends the same few Host values on every request: their verdicts are kept, so the
  // URL parser runs once per value rather than once per request. Bounded, so that a client
  // sending endless distinct values grows nothing; those are judged afresh each time.
  const verdicts = new Map<string, boolean>()
  return (header) => {
    if (header === undefined) return false
    const known = verdicts.get(header)
    if (known !== undefined) return known
    const verdict = admits(header)
    if (verdicts.size < maxRememberedHosts) verdicts.set(header, verdict)
    return verdict
  }
}

/** Reads `--allowed-hosts`: comma-separated `name` or `name:port` entries, or `*`. */
export const parseAllowedHosts = (text: string): Either.Either<ReadonlyArray<string>, string> => {
  const items = text.split(",").map((item) => item.trim()).filter((item) => item !== "")
  const bad = items.find((item) => item !== "*" && parseHost(item) === undefined)
  return bad === undefined
    ? Either.right(items)
    : Either.left(`${JSON.stringify(bad)} is not a host name: write name or name:port, e.g. ai.example.com`)
}
