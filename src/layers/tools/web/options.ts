/**
 * The web tools' configuration: which search engines the `auto` cascade
 * tries and in what order, where each engine lives, the caps every HTTP
 * fetch runs under, and the networks beyond the public internet that the
 * tools may reach.
 *
 * @module
 */
import { Duration } from "effect"
import type { LookupFunction } from "node:net"

/** Every search engine the web tools know, in the default `auto` cascade order. */
export const engineNames = ["google", "brave", "ddg-lite", "bing", "ddg"] as const

/** A search engine's name, as the model writes it in `engine=`. */
export type EngineName = typeof engineNames[number]

/** Default cap on a response body: 2 MiB. Reading stops there. */
export const defaultMaxBytes = 2 * 1024 * 1024
/** Default cap on redirects followed per fetch. */
export const defaultMaxRedirects = 5
/** Default time allowed for one fetch, redirects and body included. */
export const defaultFetchTimeout: Duration.Duration = Duration.seconds(20)

/** Default retries of a page fetch that failed before its body started (as the model client retries). */
export const defaultFetchRetries = 5
/** Default characters of page text `fetch` returns. */
export const defaultMaxChars = 20_000
/** Largest `max_chars` the model may ask for. */
export const maxCharsLimit = 100_000
/** Default and largest number of search results shown. */
export const defaultMaxResults = 8
export const maxResultsLimit = 20
/** Default User-Agent header. */
export const defaultUserAgent = "Mozilla/5.0 (compatible; easyai-web/0.1; +https://github.com/easyai)"

/** How the web tools are built. Every field is optional. */
export interface WebOptions {
  /**
   * The engines enabled, in `auto` cascade order. Default: every engine,
   * google → brave → ddg-lite → bing → ddg. Naming an engine left out here
   * is an error the model can correct.
   */
  readonly engines?: ReadonlyArray<EngineName>
  /**
   * Overrides of each engine's base URL (scheme, host, optional path
   * prefix), e.g. `{ bing: "http://127.0.0.1:8080/bing" }` for a test
   * server or a mirror. The engine's own path and query are appended.
   */
  readonly baseUrls?: Partial<Record<EngineName, string>>
  /** Time allowed for one fetch, redirects, retries and body included. Default 20 s. */
  readonly fetchTimeout?: Duration.DurationInput
  /**
   * Retries of a page fetch that failed before its body started: the
   * connection failed or the server answered 5xx. The client's backoff
   * (250 ms doubling to 4 s); a body cut while read is not retried. Search
   * engines are not retried: the cascade moves on to the next one. Default 5.
   */
  readonly fetchRetries?: number
  /** Bytes of a response body read at most; reading stops there. Default 2 MiB. */
  readonly maxBytes?: number
  /** Redirects followed at most per fetch. Default 5. */
  readonly maxRedirects?: number
  /** Default characters of page text `fetch` returns (the model may ask for up to 100 000). Default 20 000. */
  readonly maxChars?: number
  /** The User-Agent header sent with every request. */
  readonly userAgent?: string
  /**
   * Networks the tools may reach besides public internet addresses, as
   * CIDRs (`10.0.0.0/8`, `fd00::/8`) or single addresses (`127.0.0.1`).
   * Default: none, so loopback, private, link-local, shared (CGNAT),
   * multicast, cloud metadata and other reserved addresses are refused —
   * search engines' `baseUrls` included. A bad entry fails building the
   * tools with an `InvalidNetwork` error.
   */
  readonly allowNetworks?: ReadonlyArray<string>
  /**
   * The resolver host names go through; default `dns.lookup`. For tests
   * and custom resolvers: what it answers is checked like any address, and
   * so is the address each socket ends up connected to.
   */
  readonly lookup?: LookupFunction
}

/** {@link WebOptions} with every default applied. */
export interface ResolvedWebOptions {
  readonly engines: ReadonlyArray<EngineName>
  readonly baseUrls: Partial<Record<EngineName, string>>
  readonly fetchTimeout: Duration.Duration
  readonly fetchRetries: number
  readonly maxBytes: number
  readonly maxRedirects: number
  readonly maxChars: number
  readonly userAgent: string
}

const positiveInt = (value: number | undefined, fallback: number): number =>
  value !== undefined && Number.isFinite(value) && value >= 0 ? Math.floor(value) : fallback

/** Applies the defaults; duplicate engines keep their first position. */
export const resolveWebOptions = (options: WebOptions = {}): ResolvedWebOptions => {
  const engines = options.engines === undefined || options.engines.length === 0
    ? engineNames
    : [...new Set(options.engines)]
  return {
    engines,
    baseUrls: options.baseUrls ?? {},
    fetchTimeout: options.fetchTimeout === undefined ? defaultFetchTimeout : Duration.decode(options.fetchTimeout),
    fetchRetries: positiveInt(options.fetchRetries, defaultFetchRetries),
    maxBytes: Math.max(1, positiveInt(options.maxBytes, defaultMaxBytes)),
    maxRedirects: positiveInt(options.maxRedirects, defaultMaxRedirects),
    maxChars: Math.min(maxCharsLimit, Math.max(100, positiveInt(options.maxChars, defaultMaxChars))),
    userAgent: options.userAgent ?? defaultUserAgent
  }
}
