/**
 * Anthropic's Messages protocol (`POST /v1/messages`, the protocol of the
 * Anthropic SDK and Claude Code), as far as easyai speaks it: the request it
 * decodes, and the response objects and stream events it writes.
 *
 * @module
 */
import { Schema } from "effect"
import { optionalNullable } from "../json.js"

const TextBlock = Schema.Struct({ type: Schema.Literal("text"), text: Schema.String })

const ToolUseBlock = Schema.Struct({
  type: Schema.Literal("tool_use"),
  id: Schema.String,
  name: Schema.String,
  input: Schema.Unknown
})

const ToolResultBlock = Schema.Struct({
  type: Schema.Literal("tool_result"),
  tool_use_id: Schema.String,
  content: optionalNullable(Schema.Union(Schema.String, Schema.Array(Schema.Struct({ type: Schema.String, text: Schema.optional(Schema.String) })))),
  is_error: optionalNullable(Schema.Boolean)
})

const ThinkingBlock = Schema.Struct({ type: Schema.Literal("thinking", "redacted_thinking") })

/** Any other block (an image, a document): decoded so the refusal can name it. */
const OtherBlock = Schema.Struct({ type: Schema.String })

/** A block of a message's content. */
export const ContentBlock = Schema.Union(TextBlock, ToolUseBlock, ToolResultBlock, ThinkingBlock, OtherBlock)
export type ContentBlock = typeof ContentBlock.Type

/** One message of the conversation. */
export const InputMessage = Schema.Struct({
  role: Schema.Literal("user", "assistant"),
  content: Schema.Union(Schema.String, Schema.Array(ContentBlock))
})
export type InputMessage = typeof InputMessage.Type

/** A tool the client offers. */
export const InputTool = Schema.Struct({
  name: Schema.String,
  description: optionalNullable(Schema.String),
  input_schema: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})

/** How the model may use the tools. */
export const ToolChoice = Schema.Union(
  Schema.Struct({ type: Schema.Literal("auto", "any", "none") }),
  Schema.Struct({ type: Schema.Literal("tool"), name: Schema.String })
)

/** The request of `POST /v1/messages`. */
export const MessagesRequest = Schema.Struct({
  model: Schema.String,
  max_tokens: Schema.Int.pipe(Schema.positive()),
  messages: Schema.Array(InputMessage).pipe(Schema.minItems(1, { message: () => "messages must not be empty" })),
  system: optionalNullable(Schema.Union(Schema.String, Schema.Array(TextBlock))),
  tools: optionalNullable(Schema.Array(InputTool)),
  tool_choice: optionalNullable(ToolChoice),
  stream: optionalNullable(Schema.Boolean),
  temperature: optionalNullable(Schema.Number.pipe(Schema.between(0, 1))),
  top_p: optionalNullable(Schema.Number.pipe(Schema.between(0, 1))),
  top_k: optionalNullable(Schema.Int.pipe(Schema.nonNegative())),
  stop_sequences: optionalNullable(Schema.Array(Schema.String))
})
export type MessagesRequest = typeof MessagesRequest.Type

/** The request of `POST /v1/messages/count_tokens`. */
export const CountTokensRequest = Schema.Struct({
  model: Schema.String,
  messages: MessagesRequest.fields.messages,
  system: MessagesRequest.fields.system,
  tools: MessagesRequest.fields.tools
})

/** Why the model stopped. */
export type StopReason = "end_turn" | "max_tokens" | "stop_sequence" | "tool_use"

/** A block of the answer. */
export type OutputBlock =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "tool_use"; readonly id: string; readonly name: string; readonly input: unknown }

/** The token counts of an answer. */
export interface MessageUsage {
  readonly input_tokens: number
  readonly output_tokens: number
  readonly cache_read_input_tokens: number
}

/** The answer: a `message` object. */
export interface MessageObject {
  readonly id: string
  readonly type: "message"
  readonly role: "assistant"
  readonly model: string
  readonly content: ReadonlyArray<OutputBlock>
  readonly stop_reason: StopReason | null
  readonly stop_sequence: string | null
  readonly usage: MessageUsage
}

/** An error answer: `{"type":"error","error":{"type","message"}}`. */
export interface ErrorObject {
  readonly type: "error"
  readonly error: { readonly type: string; readonly message: string }
}
