/**
 * The failures of an HTTP call to a remote OpenAI-compatible server, as the
 * management calls (`/v1/models`, `/health`, …) report them. The chat stream
 * translates them into `ModelError` / `ContextOverflow` at its edge.
 *
 * @module
 */
import { Schema } from "effect"

/**
 * The server could not be reached or stopped answering.
 *
 * - `Unreachable`: connection refused or reset, DNS failure, TLS handshake
 *   failure — before any response arrived. Retried.
 * - `Timeout`: nothing arrived within the inactivity timeout. Retried while
 *   no response has arrived yet.
 * - `Cut`: the response body broke off after it started. Never retried.
 * - `InvalidRequest`: the request itself cannot be sent (a bad URL, a body
 *   that is not JSON). Never retried.
 */
export class TransportError extends Schema.TaggedError<TransportError>()("TransportError", {
  reason: Schema.Literal("Unreachable", "Timeout", "Cut", "InvalidRequest"),
  url: Schema.String,
  detail: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {
  override get message(): string {
    return `${this.url}: ${this.detail}`
  }
  /** Whether the same request may succeed when sent again. */
  get isRetryable(): boolean {
    return this.reason === "Unreachable" || this.reason === "Timeout"
  }
}

/** The server answered with a status outside 2xx. `body` is the start of what it said. */
export class HttpStatusError extends Schema.TaggedError<HttpStatusError>()("HttpStatusError", {
  url: Schema.String,
  status: Schema.Number,
  body: Schema.String
}) {
  override get message(): string {
    const said = this.body.trim()
    return `${this.url} answered HTTP ${this.status}${said === "" ? "" : `: ${said}`}`
  }
  /** 5xx may be transient; 4xx is a contract or authentication failure and is never retried. */
  get isRetryable(): boolean {
    return this.status >= 500
  }
}

/** The server answered 2xx with a body that is not what the endpoint promises. */
export class InvalidResponseError extends Schema.TaggedError<InvalidResponseError>()("InvalidResponseError", {
  url: Schema.String,
  detail: Schema.String
}) {
  override get message(): string {
    return `${this.url} answered with an unexpected body: ${this.detail}`
  }
}

/** Everything a management call of the remote client can fail with. */
export type ClientError = TransportError | HttpStatusError | InvalidResponseError
