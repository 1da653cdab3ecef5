/**
 * The options of the Tier-1 façade's questions and connections.
 *
 * @module
 */
import type { OutputSchema } from "./domain/StructuredOutput.js"
import type * as RemoteSession from "./layers/remoteSession/RemoteSession.js"
import type { ChatOptions } from "./services/Session.js"

/** How `easyai.connect` reaches the server's agent. */
export interface ConnectOptions extends Omit<RemoteSession.Options, "url"> {
  /** Continue this session (its id, from `sessionId()`) instead of opening a new one. */
  readonly resume?: string
}

/** Options of one question. */
export interface AskOptions extends ChatOptions {
  /** Aborting it cancels the generation and any running tool. */
  readonly signal?: AbortSignal
}

/** Options of an `EasyAgent.ask` whose answer is a value of `output`'s type. */
export interface StructuredAskOptions<A, I> extends Omit<AskOptions, "responseFormat"> {
  /**
   * The shape of the answer: an Effect Schema or a Standard Schema (zod 4, …).
   * A local model is held to it by a grammar (and calls no tool for that
   * answer); a remote one is sent it as `response_format`.
   */
  readonly output: OutputSchema<A, I>
}
