/**
 * The OpenAI chat-completions wire: the request body built from a
 * `ChatRequest`, and Schemas of what comes back (stream chunks, whole
 * completions, management bodies). Every response Schema ignores fields it
 * does not know and accepts `null` wherever servers are known to send it.
 *
 * @module
 */
import { Schema } from "effect"
import { optionalNullable } from "../../domain/json.js"
import type { ChatCompletionBody, WireMessage, WireResponseFormat, WireTool, WireToolChoice } from "../../domain/openai/ChatCompletions.js"
import type { ClientConfig } from "../../domain/ClientConfig.js"
import type { ChatMessage } from "../../domain/Message.js"
import type { ResponseFormat } from "../../domain/ResponseFormat.js"
import { type ToolSpec, wireDescription } from "../../domain/ToolCall.js"
import type { ChatRequest, ToolChoice } from "../../services/ChatModel.js"

/** A JSON object as sent on the wire. */
export type JsonObject = Record<string, unknown>

const message = (item: ChatMessage): typeof WireMessage.Encoded => {
  switch (item._tag) {
    case "SystemMessage":
      return { role: "system", content: item.content }
    case "UserMessage":
      return { role: "user", content: item.content }
    case "AssistantMessage":
      return item.toolCalls.length === 0
        ? { role: "assistant", content: item.content }
        : {
          role: "assistant",
          content: item.content === "" ? null : item.content,
          tool_calls: item.toolCalls.map((call) => ({
            id: call.id,
            type: "function",
            function: { name: call.name, arguments: call.arguments }
          }))
        }
    case "ToolMessage":
      return { role: "tool", tool_call_id: item.toolCallId, content: item.content }
  }
}

const tool = (spec: ToolSpec): typeof WireTool.Encoded => ({
  type: "function",
  function: {
    name: spec.name,
    description: wireDescription(spec.description, spec.shortDescription),
    parameters: spec.parameters
  }
})

const toolChoice = (choice: ToolChoice): typeof WireToolChoice.Encoded =>
  typeof choice === "string" ? choice : { type: "function", function: { name: choice.name } }

/** Adds `key: value` unless the value is absent. */
const put = (body: JsonObject, key: string, value: unknown): void => {
  if (value !== undefined) body[key] = value
}

/** OpenAI's `response_format` for a shaped answer. */
const responseFormat = (format: ResponseFormat): typeof WireResponseFormat.Encoded =>
  format.type === "json_object"
    ? { type: "json_object" }
    : { type: "json_schema", json_schema: { name: format.name, schema: format.schema, strict: true } }

/**
 * The body of `POST /v1/chat/completions`: the conversation, the tools, the
 * shapers (the request's, else the configured defaults), penalties, limits,
 * `stream: true` with usage, and the configured extra body merged last.
 */
export const requestBody = (request: ChatRequest, config: ClientConfig): JsonObject => {
  const sampling = { ...config.sampling, ...request.sampling }
  const maxTokens = request.maxTokens ?? config.maxTokens
  const stop = request.stop ?? config.stop
  const offered = request.tools.length > 0
  // What easyai's server reads, typed by the Schema it decodes with.
  const body: typeof ChatCompletionBody.Encoded = {
    ...(config.model === undefined ? {} : { model: config.model }),
    messages: request.messages.map(message),
    ...(offered ? { tools: request.tools.map(tool) } : {}),
    ...(offered && request.toolChoice !== undefined ? { tool_choice: toolChoice(request.toolChoice) } : {}),
    ...(!offered && request.toolChoice === "none" ? { tool_choice: "none" as const } : {}),
    ...(sampling.temperature === undefined ? {} : { temperature: sampling.temperature }),
    ...(sampling.topP === undefined ? {} : { top_p: sampling.topP }),
    ...(sampling.topK === undefined ? {} : { top_k: sampling.topK }),
    ...(sampling.minP === undefined ? {} : { min_p: sampling.minP }),
    ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }),
    ...(stop !== undefined && stop.length > 0 ? { stop: [...stop] } : {}),
    ...(request.responseFormat === undefined ? {} : { response_format: responseFormat(request.responseFormat) }),
    stream: true,
    // Other servers ignore the easyai_* fields. easyai's own events (prompt progress, server-side tool calls) come only to a client that asks for them.
    stream_options: {
      include_usage: true,
      easyai_events: true,
      ...(config.promptProgress === false ? { easyai_prompt_progress: false } : {})
    }
  }
  // What other servers read and easyai's leaves to its operator: the penalties and the seed.
  const extra: JsonObject = {}
  put(extra, "repeat_penalty", config.penalties?.repeatPenalty)
  put(extra, "frequency_penalty", config.penalties?.frequencyPenalty)
  put(extra, "presence_penalty", config.penalties?.presencePenalty)
  put(extra, "seed", config.seed)
  return { ...body, ...extra, ...config.extraBody }
}

// ---------------------------------------------------------------------------
// Responses.

const ToolEntry = Schema.Struct({
  name: optionalNullable(Schema.String),
  description: optionalNullable(Schema.String),
  parameters: optionalNullable(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  function: optionalNullable(Schema.Struct({
    name: Schema.String,
    description: optionalNullable(Schema.String),
    parameters: optionalNullable(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
  }))
})

/** `GET /v1/tools`: a bare array, or one under `data` or `tools`; entries flat or in OpenAI's `function` shape. */
export const ToolList = Schema.Union(
  Schema.Array(ToolEntry),
  Schema.Struct({ data: Schema.Array(ToolEntry) }),
  Schema.Struct({ tools: Schema.Array(ToolEntry) })
)
/** `GET /v1/tools`. */
export type ToolList = typeof ToolList.Type

/** Any JSON object. */
export const AnyObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })
