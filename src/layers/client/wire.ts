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
import type { ClientConfig } from "../../domain/ClientConfig.js"
import type { ChatMessage } from "../../domain/Message.js"
import type { ResponseFormat } from "../../domain/ResponseFormat.js"
import { type ToolSpec, wireDescription } from "../../domain/ToolCall.js"
import type { ChatRequest, ToolChoice } from "../../services/ChatModel.js"

/** A JSON object as sent on the wire. */
export type JsonObject = Record<string, unknown>

const message = (item: ChatMessage): JsonObject => {
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

const tool = (spec: ToolSpec): JsonObject => ({
  type: "function",
  function: {
    name: spec.name,
    description: wireDescription(spec.description, spec.shortDescription),
    parameters: spec.parameters
  }
})

const toolChoice = (choice: ToolChoice): unknown =>
  typeof choice === "string" ? choice : { type: "function", function: { name: choice.name } }

/** Adds `key: value` unless the value is absent. */
const put = (body: JsonObject, key: string, value: unknown): void => {
  if (value !== undefined) body[key] = value
}

/** OpenAI's `response_format` for a shaped answer. */
const responseFormat = (format: ResponseFormat): JsonObject =>
  format.type === "json_object"
    ? { type: "json_object" }
    : { type: "json_schema", json_schema: { name: format.name, schema: format.schema, strict: true } }

/**
 * The body of `POST /v1/chat/completions`: the conversation, the tools, the
 * shapers (the request's, else the configured defaults), penalties, limits,
 * `stream: true` with usage, and the configured extra body merged last.
 */
export const requestBody = (request: ChatRequest, config: ClientConfig): JsonObject => {
  const body: JsonObject = {}
  put(body, "model", config.model)
  body["messages"] = request.messages.map(message)
  if (request.tools.length > 0) {
    body["tools"] = request.tools.map(tool)
    put(body, "tool_choice", request.toolChoice === undefined ? undefined : toolChoice(request.toolChoice))
  } else if (request.toolChoice === "none") {
    body["tool_choice"] = "none"
  }
  const sampling = { ...config.sampling, ...request.sampling }
  put(body, "temperature", sampling.temperature)
  put(body, "top_p", sampling.topP)
  put(body, "top_k", sampling.topK)
  put(body, "min_p", sampling.minP)
  put(body, "repeat_penalty", config.penalties?.repeatPenalty)
  put(body, "frequency_penalty", config.penalties?.frequencyPenalty)
  put(body, "presence_penalty", config.penalties?.presencePenalty)
  put(body, "max_tokens", request.maxTokens ?? config.maxTokens)
  const stop = request.stop ?? config.stop
  if (stop !== undefined && stop.length > 0) body["stop"] = [...stop]
  put(body, "seed", config.seed)
  if (request.responseFormat !== undefined) body["response_format"] = responseFormat(request.responseFormat)
  body["stream"] = true
  // Other servers ignore the easyai_* fields. easyai's own events (prompt progress, server-side tool calls) come only to a client that asks for them.
  body["stream_options"] = {
    include_usage: true,
    easyai_events: true,
    ...(config.promptProgress === false ? { easyai_prompt_progress: false } : {})
  }
  return { ...body, ...config.extraBody }
}

// ---------------------------------------------------------------------------
// Responses.


/** One fragment of a tool call in a stream chunk. */
export const ToolCallDelta = Schema.Struct({
  index: optionalNullable(Schema.Number),
  id: optionalNullable(Schema.String),
  type: optionalNullable(Schema.String),
  function: optionalNullable(Schema.Struct({
    name: optionalNullable(Schema.String),
    arguments: optionalNullable(Schema.String)
  }))
})
/** One fragment of a tool call in a stream chunk. */
export type ToolCallDelta = typeof ToolCallDelta.Type

const Delta = Schema.Struct({
  content: optionalNullable(Schema.String),
  /** llama.cpp, DeepSeek. */
  reasoning_content: optionalNullable(Schema.String),
  /** vLLM, OpenRouter. */
  reasoning: optionalNullable(Schema.String),
  tool_calls: optionalNullable(Schema.Array(ToolCallDelta))
})

/** Token accounting, as OpenAI reports it. */
export const WireUsage = Schema.Struct({
  prompt_tokens: optionalNullable(Schema.Number),
  completion_tokens: optionalNullable(Schema.Number),
  prompt_tokens_details: optionalNullable(Schema.Struct({ cached_tokens: optionalNullable(Schema.Number) }))
})
/** Token accounting, as OpenAI reports it. */
export type WireUsage = typeof WireUsage.Type

/** llama.cpp's own timings, sent next to the usage. */
export const Timings = Schema.Struct({
  cache_n: optionalNullable(Schema.Number),
  prompt_n: optionalNullable(Schema.Number),
  predicted_n: optionalNullable(Schema.Number),
  predicted_per_second: optionalNullable(Schema.Number),
  /** easyai's context fill after the turn, and the context's size. */
  n_ctx_used: optionalNullable(Schema.Number),
  n_ctx: optionalNullable(Schema.Number)
})
/** llama.cpp's own timings, sent next to the usage. */
export type Timings = typeof Timings.Type

/** An error a server reports in a body (a status body or a mid-stream chunk). */
export const WireError = Schema.Union(
  Schema.String,
  Schema.Struct({
    message: optionalNullable(Schema.String),
    type: optionalNullable(Schema.String),
    code: optionalNullable(Schema.Union(Schema.String, Schema.Number)),
    n_prompt_tokens: optionalNullable(Schema.Number),
    n_ctx: optionalNullable(Schema.Number)
  })
)
/** An error a server reports in a body (a status body or a mid-stream chunk). */
export type WireError = typeof WireError.Type

/** One `data:` chunk of a streamed completion. */
export const CompletionChunk = Schema.Struct({
  choices: optionalNullable(Schema.Array(Schema.Struct({
    index: optionalNullable(Schema.Number),
    delta: optionalNullable(Delta),
    finish_reason: optionalNullable(Schema.String)
  }))),
  usage: optionalNullable(WireUsage),
  timings: optionalNullable(Timings),
  error: optionalNullable(WireError),
  /** easyai's `easyai.prompt_progress` event: prompt tokens read so far (cached included) of the prompt's total. */
  prompt_progress: optionalNullable(Schema.Struct({ processed: Schema.Number, total: Schema.Number }))
})
/** One `data:` chunk of a streamed completion. */
export type CompletionChunk = typeof CompletionChunk.Type

/** A whole (non-streamed) completion, for servers that ignore `stream: true`. */
export const Completion = Schema.Struct({
  choices: Schema.Array(Schema.Struct({
    message: optionalNullable(Schema.Struct({
      content: optionalNullable(Schema.String),
      reasoning_content: optionalNullable(Schema.String),
      reasoning: optionalNullable(Schema.String),
      tool_calls: optionalNullable(Schema.Array(Schema.Struct({
        id: optionalNullable(Schema.String),
        function: Schema.Struct({
          name: Schema.String,
          /** A JSON string per the spec; a few servers send the object itself. */
          arguments: optionalNullable(Schema.Unknown)
        })
      })))
    })),
    finish_reason: optionalNullable(Schema.String)
  })),
  usage: optionalNullable(WireUsage),
  timings: optionalNullable(Timings)
})
/** A whole (non-streamed) completion. */
export type Completion = typeof Completion.Type

/** A status body: `{"error": …}` in OpenAI's shape or llama.cpp's, or a bare `{"message": …}`. */
export const ErrorBody = Schema.Struct({
  error: optionalNullable(WireError),
  message: optionalNullable(Schema.String)
})

/** `GET /v1/models`. */
export const ModelList = Schema.Struct({
  data: Schema.Array(Schema.Struct({
    id: Schema.String,
    owned_by: optionalNullable(Schema.String),
    created: optionalNullable(Schema.Number)
  }))
})

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
