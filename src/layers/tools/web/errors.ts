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
 */
export class WebError extends Schema.TaggedError<WebError>()("WebError", {
  reason: Schema.Literal("InvalidUrl", "Transport", "Timeout", "Status", "Redirects", "Unsupported", "NoResults"),
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
