/**
 * The `AgentSessions` service: the sessions a server keeps for remote
 * callers (see `AgentRpc`), each a whole `Session` on the server's model
 * and tools, with its approvals put to the caller.
 *
 * @module
 */
import { Context, type Effect, type Option, type Stream } from "effect"
import type { AgentSessionError, RemoteTurnEvent } from "../domain/AgentRpc.js"
import type { ChatMessage } from "../domain/Message.js"
import type { AgentError } from "./Agent.js"
import type { Decision } from "./Approval.js"
import type { ChatOptions, Service as SessionService } from "./Session.js"

/** One server-side session. */
export interface AgentSession {
  readonly id: string
  /** The session itself, for the operations that need nothing more. */
  readonly session: SessionService
  /**
   * Runs one user turn: the session's events and, between them, the approval
   * requests of its tool calls. One turn at a time; a second waits.
   */
  readonly turn: (text: string, options?: ChatOptions) => Stream.Stream<RemoteTurnEvent, AgentError | AgentSessionError>
  /** Answers an approval request of the running turn; a denial's `reason` is what the model reads. */
  readonly approve: (request: string, decision: Decision) => Effect.Effect<void, AgentSessionError>
  /** Stops the running turn, and its running tool; `true` when one was running. */
  readonly interrupt: Effect.Effect<boolean>
  /** Runs `change` on the session, then saves the conversation. */
  readonly changing: <A, E>(change: Effect.Effect<A, E>) => Effect.Effect<A, E>
}

/** What opening a session gave. */
export interface Opened {
  readonly session: AgentSession
  readonly resumed: boolean
}

/** Where conversations are kept across restarts. */
export interface SessionStore {
  /** The saved conversation of `id`, if there is one. */
  readonly load: (id: string) => Effect.Effect<Option.Option<ReadonlyArray<ChatMessage>>>
  /** Saves the conversation of `id`, replacing the previous one whole. */
  readonly save: (id: string, history: ReadonlyArray<ChatMessage>) => Effect.Effect<void>
  /** Forgets `id`. */
  readonly remove: (id: string) => Effect.Effect<void>
  /** The saved ids, each with when it was last saved (epoch milliseconds). */
  readonly list: Effect.Effect<ReadonlyArray<{ readonly id: string; readonly savedAt: number }>>
}

/** The registry's operations. */
export interface Service {
  /** A new session, or `resume` continued (from memory, else from the store). */
  readonly open: (resume?: string) => Effect.Effect<Opened, AgentSessionError>
  /** The session `id`; its idle clock starts again. */
  readonly get: (id: string) => Effect.Effect<AgentSession, AgentSessionError>
  /** Ends `id`: its running turn is stopped and its saved conversation removed. */
  readonly close: (id: string) => Effect.Effect<void, AgentSessionError>
  /** How many sessions are held in memory. */
  readonly size: Effect.Effect<number>
}

/** The server's sessions. */
export class AgentSessions extends Context.Tag("easyai/AgentSessions")<AgentSessions, Service>() {}
