/**
 * Search engines as data: each is a name, a default base URL, how to build
 * its result-page URL from a query, and how to read results from that page.
 * The helpers here are shared by the engine definitions in `engines/`.
 *
 * @module
 */
import { clip, collapseWhitespace } from "./text.js"
import type { EngineName } from "./options.js"

/** One search result. */
export interface SearchResult {
  readonly title: string
  /** An absolute http(s) URL, unwrapped from the engine's click-tracking link. */
  readonly url: string
  /** A short excerpt; "" when the page gave none. */
  readonly snippet: string
}

/** A search engine: where its result page is and how to read it. */
export interface SearchEngine {
  readonly name: EngineName
  /** Scheme, host and optional path prefix, e.g. `https://www.bing.com`. */
  readonly defaultBaseUrl: string
  /** The result-page URL for `query` under `baseUrl`. */
  readonly searchUrl: (baseUrl: string, query: string) => string
  /** Reads the results from a result page fetched from `pageUrl`. Never throws. */
  readonly extract: (html: string, pageUrl: string) => ReadonlyArray<SearchResult>
}

/** Results kept per page at most (the tool shows fewer). */
export const maxResultsPerPage = 30
/** Result containers examined per page at most. */
export const maxCandidates = 100
/** Nodes looked at inside one result container at most (real ones have a few hundred). */
export const containerBudget = 5_000

/** `base` (trailing slashes dropped) followed by `pathAndQuery` (which starts with "/"). */
export const joinBase = (base: string, pathAndQuery: string): string => {
  let end = base.length
  while (end > 0 && base[end - 1] === "/") end--
  return base.slice(0, end) + pathAndQuery
}

/** `href` resolved against `pageUrl`, when it is an http(s) URL. */
export const absoluteHttp = (href: string | undefined, pageUrl: string): URL | undefined => {
  if (href === undefined) return undefined
  const trimmed = href.trim()
  if (trimmed === "" || !URL.canParse(trimmed, pageUrl)) return undefined
  const url = new URL(trimmed, pageUrl)
  return url.protocol === "http:" || url.protocol === "https:" ? url : undefined
}

/** A query parameter of `url` that is itself an http(s) URL. */
export const urlParam = (url: URL, name: string): URL | undefined => {
  const value = url.searchParams.get(name)
  return value === null ? undefined : absoluteHttp(value, url.href)
}

/**
 * Collects results: unwraps and validates URLs, collapses whitespace,
 * clips titles and snippets, drops duplicates and results without a URL.
 */
export class ResultList {
  private readonly seen = new Set<string>()
  readonly results: Array<SearchResult> = []

  /** Whether the list is full. */
  get full(): boolean {
    return this.results.length >= maxResultsPerPage
  }

  /** Adds a result; `url` must already be unwrapped. Returns whether it was kept. */
  add(title: string, url: URL | undefined, snippet: string): boolean {
    if (url === undefined || this.full) return false
    url.hash = ""
    const href = url.href
    if (this.seen.has(href)) return false
    const cleanTitle = clip(collapseWhitespace(title), 200)
    this.seen.add(href)
    this.results.push({ title: cleanTitle === "" ? url.host : cleanTitle, url: href, snippet: clip(collapseWhitespace(snippet), 300) })
    return true
  }

  /** Sets the snippet of the last result when it has none. */
  snippetForLast(snippet: string): void {
    const last = this.results[this.results.length - 1]
    if (last === undefined || last.snippet !== "") return
    this.results[this.results.length - 1] = { ...last, snippet: clip(collapseWhitespace(snippet), 300) }
  }
}
