/**
 * How a connection's JSON-RPC messages travel: over Streamable HTTP or a
 * child process's stdio. A channel moves messages; `connection.ts` speaks
 * the protocol over any of them.
 *
 * @module
 */
import { Data, type Effect } from "effect"
import type { McpError } from "../../domain/mcp.js"

/** The server forgot the session (HTTP 404): initialize again. */
export class SessionExpired extends Data.TaggedError("SessionExpired") {}

/** A message as sent: a request (with `id`) or a notification. */
export type Outgoing = {
  readonly jsonrpc: "2.0"
  readonly method: string
  readonly id?: number
  readonly params?: unknown
}

/** One way to reach a server. */
export interface Channel {
  /**
   * Sends a request and returns the raw reply message carrying its id.
   * `fresh`: outside any session (an `initialize`); the session it opens
   * replaces the current one once it is issued.
   */
  readonly request: (
    message: Outgoing & { readonly id: number },
    fresh?: boolean
  ) => Effect.Effect<unknown, McpError | SessionExpired>
  /** Sends a notification. */
  readonly notify: (message: Outgoing) => Effect.Effect<void, McpError | SessionExpired>
  /** Records the protocol version the server agreed to, for the messages that follow. */
  readonly agreed: (version: string) => Effect.Effect<void>
  /** Ends the session or the process. */
  readonly close: Effect.Effect<void>
  /**
   * Listens for what the server sends unasked (notifications such as
   * `tools/list_changed`), for as long as it runs; absent where every
   * message already arrives on one stream (stdio).
   */
  readonly listen?: Effect.Effect<void>
}
