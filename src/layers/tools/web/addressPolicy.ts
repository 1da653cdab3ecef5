/**
 * Which IP addresses the web tools may connect to: public internet
 * addresses only, unless the operator allows a network. Loopback, private,
 * link-local, shared (carrier-grade NAT), multicast, cloud metadata,
 * documentation and other reserved ranges are refused, and so are their
 * IPv4-mapped and NAT64 forms. Addresses are matched with `node:net`'s
 * `BlockList`, which also checks an IPv4-mapped IPv6 address
 * (`::ffff:127.0.0.1`) against the IPv4 ranges.
 *
 * @module
 */
import { Either } from "effect"
import { BlockList, isIP } from "node:net"
import { InvalidNetwork } from "./errors.js"

type Family = "ipv4" | "ipv6"

/** A refused range: what it is (as the refusal names it) and its subnets. */
interface Range {
  readonly kind: string
  readonly subnets: ReadonlyArray<readonly [network: string, prefix: number]>
}

/**
 * The IPv4 ranges refused, most specific first: the first match names the
 * address in the refusal. Each also covers its IPv4-mapped (`::ffff:…`) and
 * NAT64 (`64:ff9b::…`) IPv6 forms.
 */
const ipv4Ranges: ReadonlyArray<Range> = [
  {
    kind: "a cloud metadata address",
    // AWS, GCP, Azure, OpenStack (169.254.169.254); AWS ECS task metadata; Alibaba Cloud.
    subnets: [["169.254.169.254", 32], ["169.254.170.2", 32], ["100.100.100.200", 32]]
  },
  { kind: "the broadcast address", subnets: [["255.255.255.255", 32]] },
  { kind: "an unspecified (this-network) address", subnets: [["0.0.0.0", 8]] },
  { kind: "a loopback address", subnets: [["127.0.0.0", 8]] },
  { kind: "a private address", subnets: [["10.0.0.0", 8], ["172.16.0.0", 12], ["192.168.0.0", 16]] },
  { kind: "a link-local address", subnets: [["169.254.0.0", 16]] },
  { kind: "a shared (carrier-grade NAT) address", subnets: [["100.64.0.0", 10]] },
  { kind: "a multicast address", subnets: [["224.0.0.0", 4]] },
  { kind: "a documentation address", subnets: [["192.0.2.0", 24], ["198.51.100.0", 24], ["203.0.113.0", 24]] },
  { kind: "a benchmarking address", subnets: [["198.18.0.0", 15]] },
  // IETF protocol assignments (DS-Lite, NAT64 discovery, …), the old 6to4 relay anycast, and 240/4 "future use".
  { kind: "a reserved address", subnets: [["192.0.0.0", 24], ["192.88.99.0", 24], ["240.0.0.0", 4]] }
]

/** The IPv6 ranges refused besides the IPv4 ones' mapped and NAT64 forms, most specific first. */
const ipv6Ranges: ReadonlyArray<Range> = [
  { kind: "a cloud metadata address", subnets: [["fd00:ec2::254", 128]] },
  { kind: "the unspecified address", subnets: [["::", 128]] },
  { kind: "a loopback address", subnets: [["::1", 128]] },
  // Deprecated IPv4-compatible (::a.b.c.d) and SIIT IPv4-translated (::ffff:0:a.b.c.d) forms: nothing public uses them.
  { kind: "an IPv4-compatible address", subnets: [["::", 96], ["::ffff:0:0:0", 96]] },
  { kind: "a private address", subnets: [["fc00::", 7], ["64:ff9b:1::", 48]] },
  { kind: "a link-local address", subnets: [["fe80::", 10]] },
  { kind: "a site-local address", subnets: [["fec0::", 10]] },
  { kind: "a multicast address", subnets: [["ff00::", 8]] },
  { kind: "a documentation address", subnets: [["2001:db8::", 32], ["3fff::", 20]] },
  // 6to4 and Teredo tunnel to an IPv4 address that the checks above would not see.
  { kind: "a 6to4 tunnel address", subnets: [["2002::", 16]] },
  { kind: "a Teredo tunnel address", subnets: [["2001::", 32]] },
  { kind: "a reserved address", subnets: [["100::", 64], ["2001:2::", 48], ["2001:10::", 28], ["2001:20::", 28]] }
]

/** The well-known NAT64 prefix: `64:ff9b::a.b.c.d` reaches `a.b.c.d` through a translator. */
const nat64 = (range: Range): Range => ({
  kind: `${range.kind} (through NAT64)`,
  subnets: range.subnets.map(([network, prefix]) => [`64:ff9b::${network}`, 96 + prefix] as const)
})

/** A refused range as a block list. */
interface Rule {
  readonly kind: string
  readonly list: BlockList
}

const rule = (range: Range, family: Family): Rule => {
  const list = new BlockList()
  for (const [network, prefix] of range.subnets) list.addSubnet(network, prefix, family)
  return { kind: range.kind, list }
}

/** A network in CIDR form, checked. */
export interface Network {
  readonly address: string
  readonly prefix: number
  readonly family: Family
}

const prefixPattern = /^\d{1,3}$/

/**
 * Reads a network in CIDR form (`10.0.0.0/8`, `fd00::/8`); a bare address
 * is that one address (`/32` or `/128`).
 */
export const parseNetwork = (text: string): Either.Either<Network, InvalidNetwork> => {
  const trimmed = text.trim()
  const slash = trimmed.indexOf("/")
  const address = slash < 0 ? trimmed : trimmed.slice(0, slash)
  const version = isIP(address)
  const invalid = (detail: string) => Either.left(new InvalidNetwork({ network: text, detail }))
  if (version === 0) return invalid(`"${address}" is not an IPv4 or IPv6 address`)
  const family: Family = version === 4 ? "ipv4" : "ipv6"
  const bits = version === 4 ? 32 : 128
  if (slash < 0) return Either.right({ address, prefix: bits, family })
  const prefixText = trimmed.slice(slash + 1)
  const prefix = prefixPattern.test(prefixText) ? Number(prefixText) : Number.NaN
  if (!(prefix >= 0 && prefix <= bits)) return invalid(`the prefix length must be a whole number from 0 to ${bits}`)
  return Either.right({ address, prefix, family })
}

/** Reads every network of `texts`; the first bad one fails. */
export const parseNetworks = (texts: ReadonlyArray<string>): Either.Either<ReadonlyArray<Network>, InvalidNetwork> =>
  Either.all(texts.map(parseNetwork))

/** Whether an address may be connected to, and if not, what it is. */
export type Verdict = { readonly refused: false } | { readonly refused: true; readonly kind: string }

/** Decides, address by address, whether the web tools may connect. */
export interface AddressPolicy {
  /** The verdict on an IP address as text (`127.0.0.1`, `::1`); anything that is not an IP address is refused. */
  readonly check: (address: string) => Verdict
}

/**
 * The policy: public addresses pass; the reserved ranges are refused unless
 * one of `allowed` contains the address.
 */
export const makeAddressPolicy = (allowed: ReadonlyArray<Network>): AddressPolicy => {
  const allow = new BlockList()
  for (const network of allowed) allow.addSubnet(network.address, network.prefix, network.family)
  const rules: ReadonlyArray<Rule> = [
    ...ipv4Ranges.map((range) => rule(range, "ipv4")),
    ...ipv6Ranges.map((range) => rule(range, "ipv6")),
    ...ipv4Ranges.map((range) => rule(nat64(range), "ipv6"))
  ]
  return {
    check: (raw) => {
      // A scoped IPv6 address (fe80::1%eth0) is matched without its zone.
      const zone = raw.indexOf("%")
      const address = zone < 0 ? raw : raw.slice(0, zone)
      const version = isIP(address)
      if (version === 0) return { refused: true, kind: "not an IP address" }
      const family: Family = version === 4 ? "ipv4" : "ipv6"
      if (allow.check(address, family)) return { refused: false }
      const match = rules.find(({ list }) => list.check(address, family))
      return match === undefined ? { refused: false } : { refused: true, kind: match.kind }
    }
  }
}
