/**
 * What can go wrong on the web: one tagged error whose message is written
 * for the model to read.
 *
 * @module
 */
import { Schema } from "effect"
import { engineNames } from "./options.js"

/**
 * A fetch or search that did not produce content.
 *
 * - `InvalidUrl`: not an http(s) URL.
 * - `Transport`: the connection failed (DNS, refused, reset, TLS).
 * - `Timeout`: the fetch took longer than allowed.
 * - `Status`: the server answered with a non-2xx status.
 * - `Redirects`: more redirects than the cap, or a redirect without a usable target.
 * - `Unsupported`: the content is binary (an image, a PDF, an archive).
 * - `NoResults`: a search engine answered, but no result could be read from its page.
 * - `Refused`: the address is not a public one (loopback, private, link-local, metadata, …) and no allowed network holds it.
 */
export class WebError extends Schema.TaggedError<WebError>()("WebError", {
  reason: Schema.Literal("InvalidUrl", "Transport", "Timeout", "Status", "Redirects", "Unsupported", "NoResults", "Refused"),
  url: Schema.String,
  detail: Schema.String,
  status: Schema.optional(Schema.Number),
  cause: Schema.optional(Schema.Defect)
}) {
  override get message(): string {
    return this.detail
  }
}

const EngineNameSchema = Schema.Literal(...engineNames)

/** A search for which no engine tried answered with results; `failed` says why, engine by engine. */
export class SearchFailed extends Schema.TaggedError<SearchFailed>()("SearchFailed", {
  query: Schema.String,
  failed: Schema.Array(Schema.Struct({ engine: EngineNameSchema, error: WebError }))
}) {
  override get message(): string {
    const reasons = this.failed.map(({ engine, error }) => `${engine}: ${error.detail}`)
    return `no search engine returned results for "${this.query}" (${reasons.join("; ")})`
  }
}

/** A network given to allow (`allowNetworks`, `--web-allow`) that is not an address or a CIDR. */
export class InvalidNetwork extends Schema.TaggedError<InvalidNetwork>()("InvalidNetwork", {
  network: Schema.String,
  detail: Schema.String
}) {
  override get message(): string {
    return `${JSON.stringify(this.network)} is not a network: ${this.detail} (give CIDRs such as 192.168.1.0/24 or fd00::/8)`
  }
}

/**
 * A connection the address policy stopped, before any byte was sent:
 * `address` is what the host name resolved to, or the socket's peer.
 */
export class AddressRefused extends Schema.TaggedError<AddressRefused>()("AddressRefused", {
  host: Schema.String,
  address: Schema.String,
  /** What the address is, e.g. "a loopback address". */
  kind: Schema.String
}) {
  override get message(): string {
    const subject = this.host === this.address ? `${this.address} is` : `${this.host} is ${this.address},`
    return `refused: ${subject} ${this.kind}; the web tools reach public internet addresses only`
  }
}
