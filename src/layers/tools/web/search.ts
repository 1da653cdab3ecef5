/**
 * The search operation: one named engine, or the `auto` cascade that tries
 * the enabled engines in order and moves on when one fails or finds
 * nothing.
 *
 * @module
 */
import { Effect, Either } from "effect"
import type { SearchEngine, SearchResult } from "./engine.js"
import { searchEngines } from "./engines.js"
import { SearchFailed, WebError } from "./errors.js"
import { decodeBody, type Fetcher } from "./http.js"
import type { EngineName, ResolvedWebOptions } from "./options.js"
import { looksBinary } from "./text.js"

/** An engine that was tried and did not answer with results. */
export interface FailedAttempt {
  readonly engine: EngineName
  readonly error: WebError
}

/** What a search produced. */
export interface SearchOutcome {
  readonly query: string
  /** The engine whose results these are. */
  readonly engine: EngineName
  readonly results: ReadonlyArray<SearchResult>
  /** Engines tried before it, in order. */
  readonly failed: ReadonlyArray<FailedAttempt>
}

/** Searches `query` with one engine or, for `auto`, the cascade. */
export type Search = (query: string, engine: EngineName | "auto") => Effect.Effect<SearchOutcome, SearchFailed>

/** The result-page URL of `engine` for `query`, honouring a configured base URL. */
export const searchUrl = (engine: SearchEngine, options: ResolvedWebOptions, query: string): string =>
  engine.searchUrl(options.baseUrls[engine.name] ?? engine.defaultBaseUrl, query)

/** Fetches one engine's result page and reads its results; none is an error. */
const runEngine = (fetcher: Fetcher, options: ResolvedWebOptions, engine: SearchEngine, query: string) =>
  Effect.gen(function*() {
    const url = searchUrl(engine, options, query)
    const body = yield* fetcher(url)
    const results = body.kind === "text" || looksBinary(body.bytes)
      ? []
      : engine.extract(decodeBody(body.bytes, body.charset), body.url)
    if (results.length === 0) {
      return yield* new WebError({
        reason: "NoResults",
        url,
        detail: `no results could be read from ${engine.name}'s page (it may have changed, or be a CAPTCHA)`
      })
    }
    return results
  }).pipe(Effect.withSpan("Web.search", { attributes: { "easyai.search.engine": engine.name } }))

/** The search operation over `fetcher`. */
export const makeSearch = (fetcher: Fetcher, options: ResolvedWebOptions): Search => (query, requested) =>
  Effect.gen(function*() {
    const order = requested === "auto" ? options.engines : [requested]
    const failed: Array<FailedAttempt> = []
    for (const name of order) {
      const outcome = yield* Effect.either(runEngine(fetcher, options, searchEngines[name], query))
      if (Either.isRight(outcome)) return { query, engine: name, results: outcome.right, failed }
      failed.push({ engine: name, error: outcome.left })
      yield* Effect.logDebug("web search engine failed").pipe(
        Effect.annotateLogs({ engine: name, reason: outcome.left.reason, detail: outcome.left.detail })
      )
    }
    return yield* new SearchFailed({ query, failed })
  })
