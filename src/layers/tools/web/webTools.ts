/**
 * The web tools: the unified `web` tool (`action=search|fetch`) and the
 * split `web_search` / `web_fetch`. Both surfaces run the same two
 * operations; the registry's tool mode decides which the model sees.
 *
 * ```ts
 * const tools = yield* webTools({ engines: ["ddg-lite", "bing"] }) // in a Scope: its connections close with it
 * const lan = yield* webTools({ allowNetworks: ["192.168.1.0/24"] }) // public addresses, and this network too
 * ```
 *
 * Every request the tools make, search engines' included, goes through
 * their own HTTP client, whose connections reach public internet addresses
 * only, plus the networks in `allowNetworks` (see `guard.ts`).
 *
 * @module
 */
import { Duration, Effect, Schema, type Scope } from "effect"
import * as Tool from "../../../domain/Tool.js"
import { rangedCount } from "../../../domain/ToolParams.js"
import { ToolResult } from "../../../domain/ToolCall.js"
import type { SearchResult } from "./engine.js"
import { makeAddressPolicy, parseNetworks } from "./addressPolicy.js"
import type { InvalidNetwork, SearchFailed } from "./errors.js"
import { guardedClient } from "./guard.js"
import { makeFetcher } from "./http.js"
import { makeReadPage, type ReadPage, renderPage } from "./page.js"
import {
  defaultMaxResults,
  type EngineName,
  maxCharsLimit,
  maxResultsLimit,
  type ResolvedWebOptions,
  resolveWebOptions,
  type WebOptions
} from "./options.js"
import { makeSearch, type Search, type SearchOutcome } from "./search.js"

/** Longest query accepted, in characters. */
export const maxQueryLength = 500
const minChars = 500

/** How the text of one surface names the other operation. */
interface Surface {
  readonly tool: string
  readonly fetchCall: (url: string) => string
  readonly searchCall: (query: string, engine?: string) => string
}

const splitSurface = (tool: string): Surface => ({
  tool,
  fetchCall: (url) => `web_fetch(${JSON.stringify({ url })})`,
  searchCall: (query, engine) => `web_search(${JSON.stringify(engine === undefined ? { query } : { query, engine })})`
})

const unifiedSurface: Surface = {
  tool: "web",
  fetchCall: (url) => `web(${JSON.stringify({ action: "fetch", url })})`,
  searchCall: (query, engine) =>
    `web(${JSON.stringify(engine === undefined ? { action: "search", query } : { action: "search", query, engine })})`
}

const sourcesRule =
  `Sources: your reply MUST end with a "Sources:" list of the URLs you actually used, one per line. Cite only pages
you searched or fetched in this conversation; never invent or guess a URL.`

const memoryFirst =
  `Memory first: when knowledge_* memory tools are available, search memory (knowledge_search) first, then ALSO
search the web even when memory had results; merge both (on a conflict prefer the more recent, more
authoritative source) and save the durable new facts with knowledge_save.`

/** A byte count for people: "2 MiB", "512 KiB", else "<n> bytes". */
const bytesText = (bytes: number): string =>
  bytes % (1024 * 1024) === 0
    ? `${bytes / (1024 * 1024)} MiB`
    : bytes % 1024 === 0
    ? `${bytes / 1024} KiB`
    : `${bytes} bytes`

const cascadeText = (options: ResolvedWebOptions): string =>
  `"auto" (default) tries ${options.engines.join(" → ")} in turn and moves on when one fails or finds nothing`

const renderResults = (outcome: SearchOutcome, limit: number, surface: Surface): string => {
  const shown = outcome.results.slice(0, limit)
  const lines = [`${shown.length} result${shown.length === 1 ? "" : "s"} for "${outcome.query}" from ${outcome.engine}:`]
  shown.forEach((result: SearchResult, i) => {
    lines.push("", `${i + 1}. ${result.title}`, `   ${result.url}`)
    if (result.snippet !== "") lines.push(`   ${result.snippet}`)
  })
  if (outcome.failed.length > 0) {
    lines.push("", `Tried first: ${outcome.failed.map(({ engine, error }) => `${engine} (${error.detail})`).join("; ")}.`)
  }
  const first = shown[0]
  lines.push(
    "",
    `Snippets are short and may be stale: read the relevant pages with ${
      surface.fetchCall(first?.url ?? "https://…")
    } before answering, and end your reply with a "Sources:" list of the URLs you used.`
  )
  return lines.join("\n")
}

const searchFailure = (error: SearchFailed, requested: EngineName | "auto", surface: Surface): ToolResult =>
  ToolResult.error(
    `${surface.tool}: ${error.message}. ${
      requested === "auto"
        ? "Try fewer or different words."
        : `Try ${surface.searchCall(error.query, "auto")} to let other engines answer.`
    }`
  )

/** The search operation as a handler body. */
const runSearch = (search: Search, surface: Surface) =>
(
  query: string,
  engine: EngineName | "auto" | undefined,
  maxResults: number | undefined
): Effect.Effect<ToolResult, Tool.HandlerError> => {
  const trimmed = query.trim()
  if (trimmed === "") return Tool.fail(`query is empty. Example: ${surface.searchCall("effect-ts schema tutorial")}`)
  const requested = engine ?? "auto"
  return search(trimmed, requested).pipe(
    Effect.map((outcome) =>
      ToolResult.ok(renderResults(outcome, Math.min(maxResults ?? defaultMaxResults, maxResultsLimit), surface))
    ),
    Effect.catchTag("SearchFailed", (error) => Effect.succeed(searchFailure(error, requested, surface)))
  )
}

/** The fetch operation as a handler body. */
const runFetch = (readPage: ReadPage, options: ResolvedWebOptions) =>
(url: string, maxChars: number | undefined): Effect.Effect<string, Tool.HandlerError> =>
  Effect.map(
    readPage(url),
    (page) => renderPage(page, Math.min(maxCharsLimit, Math.max(minChars, maxChars ?? options.maxChars)))
  )

const searchDescription = (options: ResolvedWebOptions, surface: Surface) =>
  `Search the web: returns a numbered list of results, each a title, a URL and a short snippet.
Use it for anything current, or anything you are not sure of: news, prices, releases, people, documentation.
Snippets are not enough to answer from: read the best pages with ${surface.fetchCall("…")} afterwards.

Parameters:
  query        Required. The search words, at most ${maxQueryLength} characters, e.g. "node 22 release date".
  engine       Optional. ${cascadeText(options)}; or name one engine: ${options.engines.join(", ")}.
  max_results  Optional. 1..${maxResultsLimit}, default ${defaultMaxResults}; more is lowered to ${maxResultsLimit}.

Output: "<n> results for "<query>" from <engine>:", then per result its number and title, the URL, and the snippet.

Examples:
  {"query": "htmlparser2 streaming parser"}
  {"query": "latest LTS release of Node.js", "engine": "bing", "max_results": 5}

Errors: when no engine returns results, the error says what each engine answered; try other words or another engine.

${memoryFirst}

${sourcesRule}`

const fetchDescription = (options: ResolvedWebOptions) =>
  `Fetch a web page (http or https) and return it as readable text: the final URL, the title, then the text with
headings ("# "), paragraphs and list items ("- ") on their own lines. Scripts, styles and other non-text parts are
dropped. Plain-text content (text/plain, JSON, XML, …) is returned as it is; binary content (images, PDF, archives)
is refused.

Parameters:
  url        Required. The full address, e.g. "https://nodejs.org/en/about/previous-releases" ("https://" is assumed if left out).
  max_chars  Optional. ${minChars}..${maxCharsLimit}, default ${options.maxChars}: characters of text returned (other values
             are moved into that range).

Limits: up to ${options.maxRedirects} redirects are followed; at most ${bytesText(options.maxBytes)} of a page are read (a note
says when it was longer); a fetch gives up after ${Duration.format(options.fetchTimeout)}. JavaScript is not run, so pages built by
scripts may come back nearly empty: try another source then.

Examples:
  {"url": "https://en.wikipedia.org/wiki/HTTP"}
  {"url": "https://example.com/docs/install", "max_chars": 5000}

Errors: an unreachable host, an HTTP error status, too many redirects, a timeout or binary content comes back as an
error that says which; try another result.

${memoryFirst}

${sourcesRule}`


const unifiedDescription = (options: ResolvedWebOptions) =>
  `Search the web and fetch web pages. Pick an action; the parameters needed depend on it. 2 actions are supported:

  action="search"
    Search the web: a numbered list of results, each a title, a URL and a short snippet. Use it for anything current
    or anything you are not sure of. Required: query. Optional: engine, max_results. Examples:
      {"action": "search", "query": "htmlparser2 streaming parser"}
      {"action": "search", "query": "latest LTS release of Node.js", "engine": "bing", "max_results": 5}

  action="fetch"
    Fetch a page (http or https) as readable text: final URL, title, then headings, paragraphs and list items on
    their own lines; scripts and styles dropped. Text content (text/plain, JSON, XML) is returned as it is; binary
    content (images, PDF, archives) is refused. Required: url. Optional: max_chars. Examples:
      {"action": "fetch", "url": "https://en.wikipedia.org/wiki/HTTP"}
      {"action": "fetch", "url": "https://example.com/docs/install", "max_chars": 5000}

Search first, then fetch the best results: snippets are short and may be stale. A call with a url and no action
fetches; a call with a query and no action searches.

engine: ${cascadeText(options)}; or name one: ${options.engines.join(", ")}.
Limits: up to ${options.maxRedirects} redirects, ${bytesText(options.maxBytes)} read per page (a note says when a page was
longer), ${Duration.format(options.fetchTimeout)} per fetch. JavaScript is not run.

Errors: each failure says what went wrong (no results from any engine, unreachable host, HTTP status, too many
redirects, timeout, binary content); try other words, another engine or another result.

${memoryFirst}

${sourcesRule}`

const wireRule = `Reply MUST end with a \`Sources:\` block listing the URLs you used.`

const QueryParam = Schema.String.pipe(Schema.maxLength(maxQueryLength))
const UrlParam = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(4096))
/** Counts outside their range are moved into it, not refused (as the fs tools do); the schema shows the range. */
const MaxResults = rangedCount(1, maxResultsLimit)
const MaxChars = rangedCount(minChars, maxCharsLimit)
const engineParam = (options: ResolvedWebOptions) => Schema.Literal("auto", ...options.engines)

/**
 * Builds the web tools: the split `web_search` and `web_fetch`, then the
 * unified `web`. Register them all; the registry's tool mode picks the
 * surface the model sees. Their HTTP client (one undici agent, whose
 * connections reach public addresses and `allowNetworks` only) lives as
 * long as the scope. Fails with `InvalidNetwork` on a bad `allowNetworks`
 * entry.
 */
export const webTools = (
  options?: WebOptions
): Effect.Effect<ReadonlyArray<Tool.Tool>, InvalidNetwork, Scope.Scope> =>
  Effect.gen(function*() {
    const allowed = yield* parseNetworks(options?.allowNetworks ?? [])
    const client = yield* guardedClient(makeAddressPolicy(allowed), options?.lookup)
    const resolved = resolveWebOptions(options)
    const limits = {
      timeout: resolved.fetchTimeout,
      maxBytes: resolved.maxBytes,
      maxRedirects: resolved.maxRedirects,
      userAgent: resolved.userAgent
    }
    // A search engine that fails is not asked again: the cascade moves on to the next one.
    const search = makeSearch(makeFetcher(client, { ...limits, retries: 0 }), resolved)
    const fetchPage = runFetch(makeReadPage(makeFetcher(client, { ...limits, retries: resolved.fetchRetries })), resolved)
    const Engine = engineParam(resolved)
    const engineDoc = `Optional. ${cascadeText(resolved)}; or one of ${resolved.engines.join(", ")}.`

    const webSearch = Tool.make({
      name: "web_search",
      annotations: { readOnly: true, openWorld: true },
      description: searchDescription(resolved, splitSurface("web_search")),
      shortDescription: `Search the web (query="..."): titles, URLs, snippets. ${wireRule}`,
      surface: "split",
      parameters: Schema.Struct({
        query: QueryParam.annotations({ description: `Required. The search words, e.g. "node 22 release date".` }),
        engine: Schema.optional(Engine.annotations({ description: engineDoc })),
        max_results: Schema.optional(
          MaxResults.annotations({ description: `Optional. 1..${maxResultsLimit}, default ${defaultMaxResults}.` })
        )
      }),
      examples: [{ query: "htmlparser2 streaming parser" }],
      handler: ({ query, engine, max_results }) =>
        runSearch(search, splitSurface("web_search"))(query, engine, max_results)
    })

    const webFetch = Tool.make({
      name: "web_fetch",
      annotations: { readOnly: true, openWorld: true },
      description: fetchDescription(resolved),
      shortDescription: `Fetch a web page (url="https://...") and read it as text. ${wireRule}`,
      surface: "split",
      parameters: Schema.Struct({
        url: UrlParam.annotations({ description: `Required. The full http(s) address, e.g. "https://example.com/page".` }),
        max_chars: Schema.optional(
          MaxChars.annotations({
            description: `Optional. ${minChars}..${maxCharsLimit}, default ${resolved.maxChars}: characters of text returned.`
          })
        )
      }),
      examples: [{ url: "https://en.wikipedia.org/wiki/HTTP" }],
      handler: ({ url, max_chars }) => fetchPage(url, max_chars)
    })

    const web = Tool.make({
      name: "web",
      annotations: { readOnly: true, openWorld: true },
      description: unifiedDescription(resolved),
      shortDescription: `Search the web and fetch URLs. action=search|fetch. ${wireRule}`,
      surface: "unified",
      parameters: Schema.Struct({
        action: Schema.Literal("search", "fetch").annotations({
          description: `Required. "search" (needs query) or "fetch" (needs url).`
        }),
        query: Schema.optional(QueryParam.annotations({ description: "Used by search (required): the search words." })),
        url: Schema.optional(UrlParam.annotations({ description: "Used by fetch (required): the full http(s) address." })),
        engine: Schema.optional(Engine.annotations({ description: `Used by search. ${engineDoc}` })),
        max_results: Schema.optional(
          MaxResults.annotations({
            description: `Used by search (optional): 1..${maxResultsLimit}, default ${defaultMaxResults}.`
          })
        ),
        max_chars: Schema.optional(
          MaxChars.annotations({
            description: `Used by fetch (optional): ${minChars}..${maxCharsLimit}, default ${resolved.maxChars}.`
          })
        )
      }),
      examples: [{ action: "search", query: "htmlparser2 streaming parser" }],
      inferAction: (args) =>
        typeof args["url"] === "string" ? "fetch" : typeof args["query"] === "string" ? "search" : undefined,
      handler: (params) => {
        if (params.action === "search") {
          return params.query === undefined
            ? Tool.fail(`action="search" needs query. Example: ${unifiedSurface.searchCall("node 22 release date")}`)
            : runSearch(search, unifiedSurface)(params.query, params.engine, params.max_results)
        }
        return params.url === undefined
          ? Tool.fail(`action="fetch" needs url. Example: ${unifiedSurface.fetchCall("https://example.com/page")}`)
          : fetchPage(params.url, params.max_chars)
      }
    })

    return [webSearch, webFetch, web]
  })
