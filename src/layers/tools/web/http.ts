/**
 * The HTTP fetcher under both web operations: GET over `@effect/platform`'s
 * `HttpClient`, http and https only, redirects followed by hand up to a cap,
 * the body read as a stream and abandoned (connection aborted) at a byte
 * cap, and the whole fetch under one timeout.
 *
 * @module
 */
import { FetchHttpClient, HttpClient, type HttpClientError, type HttpClientResponse } from "@effect/platform"
import { Data, Duration, Effect, Stream } from "effect"
import { backoff } from "../../client/retry.js"
import { AddressRefused, WebError } from "./errors.js"
import { networkErrorText } from "../../../domain/errorText.js"

/** How a body's declared media type is treated. */
export type ContentKind = "html" | "text" | "binary" | "unknown"

/** The limits one fetch runs under. */
export interface FetchLimits {
  readonly timeout: Duration.Duration
  /** Retries of a request that failed before a body started (connection failure, 5xx); 0 for none. */
  readonly retries: number
  readonly maxBytes: number
  readonly maxRedirects: number
  readonly userAgent: string
}

/** A response body, read up to the byte cap. */
export interface FetchedBody {
  /** The URL that answered, after redirects. */
  readonly url: string
  /** The URLs that redirected, in order (empty when there was no redirect). */
  readonly redirects: ReadonlyArray<string>
  readonly status: number
  /** The media type, lower case, without parameters; "" when the server sent none. */
  readonly mediaType: string
  readonly kind: ContentKind
  /** The `charset` parameter of the Content-Type, if any. */
  readonly charset: string | undefined
  readonly bytes: Uint8Array
  /** The body went on past `maxBytes`; reading stopped there. */
  readonly truncated: boolean
}

/** A function that fetches a URL under fixed limits. */
export type Fetcher = (url: string) => Effect.Effect<FetchedBody, WebError>

const textTypes = new Set([
  "application/json",
  "application/xml",
  "application/javascript",
  "application/x-javascript",
  "application/ecmascript",
  "application/x-ndjson",
  "application/yaml",
  "application/x-yaml",
  "application/toml",
  "application/x-sh",
  "application/sql",
  "application/graphql",
  "image/svg+xml"
])

/** What a media type means for reading: markup, plain text, binary, or unknown (sniff the bytes). */
export const contentKind = (mediaType: string): ContentKind => {
  if (mediaType === "" || mediaType === "application/octet-stream") return "unknown"
  if (mediaType === "text/html" || mediaType === "application/xhtml+xml") return "html"
  if (mediaType.startsWith("text/") || textTypes.has(mediaType)) return "text"
  if (mediaType.endsWith("+json") || mediaType.endsWith("+xml")) return "text"
  return "binary"
}

/** Splits a Content-Type header into its media type and charset. */
export const parseContentType = (header: string | undefined): { mediaType: string; charset: string | undefined } => {
  if (header === undefined) return { mediaType: "", charset: undefined }
  const [type = "", ...params] = header.split(";")
  let charset: string | undefined
  for (const param of params) {
    const eq = param.indexOf("=")
    if (eq < 0) continue
    if (param.slice(0, eq).trim().toLowerCase() !== "charset") continue
    const value = param.slice(eq + 1).trim()
    charset = value.startsWith("\"") && value.endsWith("\"") && value.length >= 2 ? value.slice(1, -1) : value
  }
  return { mediaType: type.trim().toLowerCase(), charset }
}

/** Decodes a body with its charset, UTF-8 when the charset is missing or unknown. */
export const decodeBody = (bytes: Uint8Array, charset: string | undefined): string => {
  if (charset !== undefined) {
    try {
      return new TextDecoder(charset.toLowerCase()).decode(bytes)
    } catch {
      // an unknown charset label: fall back to UTF-8 below
    }
  }
  return new TextDecoder("utf-8").decode(bytes)
}

/**
 * Parses a URL the model wrote: `https://` is assumed when the scheme is
 * missing; any scheme but http and https is refused.
 */
export const parseHttpUrl = (raw: string): Effect.Effect<URL, WebError> => {
  const text = raw.trim()
  const invalid = (detail: string) => Effect.fail(new WebError({ reason: "InvalidUrl", url: text, detail }))
  if (text === "") return invalid("the URL is empty; give a full address such as https://example.com/page")
  const url = URL.canParse(text) ? new URL(text) : URL.canParse(`https://${text}`) ? new URL(`https://${text}`) : undefined
  if (url === undefined) return invalid(`"${text}" is not a URL; give a full address such as https://example.com/page`)
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return invalid(`only http:// and https:// URLs can be fetched, not ${url.protocol} ("${text}")`)
  }
  if (url.username !== "" || url.password !== "") return invalid(`URLs with credentials are not fetched ("${text}")`)
  return Effect.succeed(url)
}

const redirectStatuses = new Set([301, 302, 303, 307, 308])

/** A 5xx answer, as a failure only so the retry sees it; after the last retry it is the answer. */
class ServerError extends Data.TaggedError("ServerError")<{ readonly response: HttpClientResponse.HttpClientResponse }> {}

/** A request failure worth asking again: the connection failed (not refused by the address policy), or a 5xx. */
const retryable = (error: HttpClientError.HttpClientError | ServerError): boolean =>
  error._tag === "ServerError" ||
  (error._tag === "RequestError" && error.reason === "Transport" && refusalOf(error) === undefined)

type Hop =
  | { readonly _tag: "Redirect"; readonly location: string | undefined }
  | { readonly _tag: "Body"; readonly body: Omit<FetchedBody, "url" | "redirects"> }

/** The policy's refusal behind a transport failure, if that is what it was (undici may wrap it once). */
const refusalOf = (error: HttpClientError.RequestError): AddressRefused | undefined => {
  const cause = error.cause
  if (cause instanceof AddressRefused) return cause
  return cause instanceof Error && cause.cause instanceof AddressRefused ? cause.cause : undefined
}

/** Reads a body stream until its end or `maxBytes`; past the cap, reading stops and the stream is released. */
const readCapped = (
  response: HttpClientResponse.HttpClientResponse,
  maxBytes: number
): Effect.Effect<{ bytes: Uint8Array; truncated: boolean }, HttpClientError.ResponseError> =>
  Effect.suspend(() => {
    const chunks: Array<Uint8Array> = [] // owned by this one read
    return Stream.runFoldWhile(
      response.stream,
      { size: 0, truncated: false },
      (state) => !state.truncated,
      (state, chunk) => {
        const room = maxBytes - state.size
        if (chunk.length <= room) {
          chunks.push(chunk)
          return { size: state.size + chunk.length, truncated: false }
        }
        if (room > 0) chunks.push(chunk.subarray(0, room))
        return { size: maxBytes, truncated: true }
      }
    ).pipe(Effect.map(({ size, truncated }) => {
      const bytes = new Uint8Array(size)
      let offset = 0
      for (const chunk of chunks) {
        bytes.set(chunk, offset)
        offset += chunk.length
      }
      return { bytes, truncated }
    }))
  })

/**
 * One request: a redirect's target, or the body read up to the cap. The
 * request is tied to the scope, so whatever is left unread (a redirect's
 * body, a binary body, the rest past the cap) is aborted when it closes.
 */
const hop = (client: HttpClient.HttpClient, limits: FetchLimits, url: URL): Effect.Effect<Hop, WebError> =>
  Effect.scoped(Effect.gen(function*() {
    const response = yield* HttpClient.withScope(client).get(url, {
      headers: {
        "user-agent": limits.userAgent,
        accept: "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5",
        "accept-language": "en-US,en;q=0.8"
      }
    }).pipe(
      // Before any of a body is read, a failed connection or a 5xx is asked again, as the model client does.
      Effect.filterOrFail((answer) => answer.status < 500, (answer) => new ServerError({ response: answer })),
      Effect.retry({ schedule: backoff(limits.retries), while: retryable }),
      Effect.catchTag("ServerError", (error) => Effect.succeed(error.response))
    )
    if (redirectStatuses.has(response.status)) {
      return { _tag: "Redirect", location: response.headers["location"] } satisfies Hop
    }
    if (response.status < 200 || response.status > 299) {
      return yield* new WebError({
        reason: "Status",
        url: url.href,
        status: response.status,
        detail: `${url.href} answered HTTP ${response.status}`
      })
    }
    const { mediaType, charset } = parseContentType(response.headers["content-type"])
    const kind = contentKind(mediaType)
    if (kind === "binary") {
      return yield* new WebError({
        reason: "Unsupported",
        url: url.href,
        detail: `${url.href} is ${mediaType}, which is binary: only HTML and text content can be read`
      })
    }
    const { bytes, truncated } = yield* readCapped(response, limits.maxBytes)
    return { _tag: "Body", body: { status: response.status, mediaType, kind, charset, bytes, truncated } } satisfies Hop
  })).pipe(
    // Node's fetch follows redirects itself unless told not to; other clients ignore this.
    Effect.provideService(FetchHttpClient.RequestInit, { redirect: "manual" }),
    Effect.catchTags({
      RequestError: (error) => {
        const refused = refusalOf(error)
        return Effect.fail(
          refused !== undefined
            ? new WebError({ reason: "Refused", url: url.href, detail: refused.message, cause: refused })
            : new WebError({
              reason: error.reason === "InvalidUrl" ? "InvalidUrl" : "Transport",
              url: url.href,
              detail: `could not fetch ${url.href}: ${networkErrorText(error.cause, error.message)}`,
              cause: error
            })
        )
      },
      ResponseError: (error) =>
        Effect.fail(
          new WebError({
            reason: "Transport",
            url: url.href,
            detail: `the connection to ${url.href} failed while reading: ${networkErrorText(error.cause, error.message)}`,
            cause: error
          })
        )
    })
  )

/** Follows redirects by hand, at most `maxRedirects`, each target checked to be http(s). */
const follow = (client: HttpClient.HttpClient, limits: FetchLimits, start: URL): Effect.Effect<FetchedBody, WebError> =>
  Effect.gen(function*() {
    const redirects: Array<string> = []
    let current = start
    for (;;) {
      const outcome = yield* hop(client, limits, current)
      if (outcome._tag === "Body") return { url: current.href, redirects, ...outcome.body }
      const location = outcome.location
      if (location === undefined || !URL.canParse(location, current.href)) {
        return yield* new WebError({
          reason: "Redirects",
          url: current.href,
          detail: `${current.href} redirected without a usable Location header`
        })
      }
      if (redirects.length >= limits.maxRedirects) {
        return yield* new WebError({
          reason: "Redirects",
          url: start.href,
          detail: `stopped after ${limits.maxRedirects} redirects (started at ${start.href}, last at ${current.href})`
        })
      }
      const next = new URL(location, current)
      if (next.protocol !== "http:" && next.protocol !== "https:") {
        return yield* new WebError({
          reason: "Redirects",
          url: current.href,
          detail: `${current.href} redirected to ${next.protocol} URL, which is not fetched (only http and https)`
        })
      }
      redirects.push(current.href)
      current = next
    }
  })

/**
 * A fetcher on `client` under `limits`: the URL is checked, redirects are
 * followed up to the cap, the body is read up to the byte cap, and all of
 * it must finish within the timeout.
 */
export const makeFetcher = (client: HttpClient.HttpClient, limits: FetchLimits): Fetcher => (raw) =>
  Effect.flatMap(parseHttpUrl(raw), (url) =>
    follow(client, limits, url).pipe(
      Effect.timeoutFail({
        duration: limits.timeout,
        onTimeout: () =>
          new WebError({
            reason: "Timeout",
            url: url.href,
            detail: `${url.href} did not answer within ${Duration.format(limits.timeout)}`
          })
      })
    )).pipe(Effect.withSpan("Web.fetch", { kind: "client", attributes: { "url.full": raw } }))
