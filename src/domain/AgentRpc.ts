/**
 * The agent protocol: a whole `Session` served by one process and driven
 * from another, typed end to end with `@effect/rpc`. `easyai serve` answers
 * it at `/rpc`; `RemoteSession.layer` speaks it.
 *
 * A turn streams the session's `AgentEvent`s, plus `ApprovalRequested`
 * whenever the server's loop wants to run a tool: the caller decides and
 * answers with `Approve` while the turn waits.
 *
 * @module
 */
import { Rpc, RpcGroup } from "@effect/rpc"
import { Schema } from "effect"
import { AgentEvent } from "./AgentEvent.js"
import { ContextOverflow, ModelError } from "./errors.js"
import { ChatMessage } from "./Message.js"
import { PresetName, SamplingOverrides } from "./Sampling.js"
import { ToolCall } from "./ToolCall.js"

/** A server-side session's id: 32 lowercase hex digits the server drew at random. */
export const AgentSessionId = Schema.String.pipe(
  Schema.pattern(/^[0-9a-f]{32}$/),
  Schema.annotations({ description: "A session id: 32 lowercase hex digits, as the server handed it out." })
)

/** The server's loop wants to run `call`; the turn waits until `Approve` answers `id`. */
export class ApprovalRequested extends Schema.TaggedClass<ApprovalRequested>()("ApprovalRequested", {
  id: Schema.String,
  call: ToolCall,
  /** The tool as people know it: `alias.tool` for an MCP server's tool, else its name. */
  displayName: Schema.String
}) {}

/** What a remote turn streams: the session's events and the approval requests between them. */
export const RemoteTurnEvent = Schema.Union(AgentEvent, ApprovalRequested)
/** What a remote turn streams. */
export type RemoteTurnEvent = typeof RemoteTurnEvent.Type

/**
 * A session-level refusal:
 *
 * - `NotFound`: no session has that id (never opened, closed, or expired).
 * - `Full`: every session slot holds a running turn.
 * - `Overloaded`: every generation slot is busy and the queue is full; try again shortly.
 * - `Unsupported`: the operation cannot cross the wire (a tool's handler, say).
 * - `Interrupted`: the turn was stopped by `Interrupt`.
 */
export class AgentSessionError extends Schema.TaggedError<AgentSessionError>()("AgentSessionError", {
  reason: Schema.Literal("NotFound", "Full", "Overloaded", "Unsupported", "Interrupted"),
  detail: Schema.String
}) {
  override get message(): string {
    return this.detail
  }
}

/** The tool choice of a turn's first model turn. */
export const ToolChoiceSchema = Schema.Union(
  Schema.Literal("auto", "none", "required"),
  Schema.Struct({ name: Schema.String })
)

/** `Session.ChatOptions` on the wire. */
export const TurnOptions = Schema.Struct({
  preset: Schema.optionalWith(PresetName, { exact: true }),
  sampling: Schema.optionalWith(SamplingOverrides, { exact: true }),
  maxTokens: Schema.optionalWith(Schema.Int.pipe(Schema.positive()), { exact: true }),
  toolChoice: Schema.optionalWith(ToolChoiceSchema, { exact: true })
})

/** What opening a session tells the caller. */
export const OpenedSession = Schema.Struct({
  id: AgentSessionId,
  /** Whether an existing conversation was continued. */
  resumed: Schema.Boolean,
  /** How many messages its history holds. */
  messages: Schema.Number
})

const session = { session: AgentSessionId }
const failure = AgentSessionError
const turnFailure = Schema.Union(ModelError, ContextOverflow, AgentSessionError)

/** The agent protocol. */
export class AgentRpcs extends RpcGroup.make(
  /** Opens a new session, or continues `resume` (in memory, or as the server last saved it). */
  Rpc.make("Open", {
    payload: Schema.Struct({ resume: Schema.optionalWith(AgentSessionId, { exact: true }) }),
    success: OpenedSession,
    error: failure
  }),
  /** Runs one user turn. */
  Rpc.make("Turn", {
    payload: Schema.Struct({ ...session, text: Schema.String, options: Schema.optionalWith(TurnOptions, { exact: true }) }),
    success: RemoteTurnEvent,
    error: turnFailure,
    stream: true
  }),
  /** Answers an `ApprovalRequested` of the running turn. */
  Rpc.make("Approve", {
    payload: Schema.Struct({
      ...session,
      id: Schema.String,
      approved: Schema.Boolean,
      /** Why not, for the model to read; the server's own wording when absent. */
      reason: Schema.optionalWith(Schema.String.pipe(Schema.maxLength(1000)), { exact: true })
    }),
    error: failure
  }),
  /** Stops the session's running turn and its running tool; `true` when one was running. */
  Rpc.make("Interrupt", { payload: session, success: Schema.Boolean, error: failure }),
  Rpc.make("History", { payload: session, success: Schema.Array(ChatMessage), error: failure }),
  Rpc.make("System", { payload: session, success: Schema.String, error: failure }),
  Rpc.make("RenderSystem", { payload: session, success: Schema.String, error: failure }),
  Rpc.make("RefreshSystem", { payload: session, error: failure }),
  Rpc.make("SetSystem", { payload: { ...session, text: Schema.String }, error: failure }),
  Rpc.make("AppendSystem", { payload: { ...session, text: Schema.String }, error: failure }),
  Rpc.make("Reset", { payload: session, error: failure }),
  Rpc.make("Compress", {
    payload: session,
    success: Schema.Struct({ recap: Schema.String, replaced: Schema.Number }),
    error: turnFailure
  }),
  /** Ends the session: it is forgotten, its saved conversation removed. */
  Rpc.make("Close", { payload: session, error: failure })
) {}
