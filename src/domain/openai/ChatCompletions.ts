/**
 * OpenAI's chat-completions protocol (`POST /v1/chat/completions`, and the
 * `GET /v1/models` and error bodies around it), modelled once: the server
 * decodes requests and types what it writes with these Schemas; the remote
 * client types what it sends and decodes what comes back with them.
 *
 * The request Schema is as strict as the server needs (a field it uses is
 * checked, one it does not use is ignored); the response Schemas ignore
 * fields they do not know and accept `null` wherever servers are known to
 * send it, so the client reads other servers too.
 *
 * @module
 */
import { Schema } from "effect"
import { optionalNullable } from "../json.js"
import { PresetName } from "../Sampling.js"

// ---------------------------------------------------------------------------
// The request.

export const ContentPart = Schema.Struct({ type: Schema.String, text: Schema.optional(Schema.String) })
export const Content = Schema.NullOr(Schema.Union(Schema.String, Schema.Array(ContentPart)))

export const WireToolCall = Schema.Struct({
  id: Schema.String,
  type: Schema.optional(Schema.Literal("function")),
  function: Schema.Struct({
    name: Schema.String,
    /** A JSON string per the spec; some clients send the object. */
    arguments: Schema.optional(Schema.Unknown)
  })
})

export const WireMessage = Schema.Struct({
  role: Schema.Literal("system", "developer", "user", "assistant", "tool"),
  content: Schema.optional(Content),
  name: optionalNullable(Schema.String),
  tool_calls: optionalNullable(Schema.Array(WireToolCall)),
  tool_call_id: optionalNullable(Schema.String),
  reasoning_content: optionalNullable(Schema.String)
})
export type WireMessage = typeof WireMessage.Type

export const WireTool = Schema.Struct({
  type: Schema.Literal("function"),
  function: Schema.Struct({
    name: Schema.String,
    description: optionalNullable(Schema.String),
    parameters: optionalNullable(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
  })
})

export const WireToolChoice = Schema.Union(
  Schema.Literal("auto", "none", "required"),
  Schema.Struct({ type: Schema.Literal("function"), function: Schema.Struct({ name: Schema.String }) })
)

export const Stop = Schema.Union(Schema.String, Schema.Array(Schema.String))

/** OpenAI's `response_format`: free text, any JSON object, or JSON against a schema. */
export const WireResponseFormat = Schema.Union(
  Schema.Struct({ type: Schema.Literal("text") }),
  Schema.Struct({ type: Schema.Literal("json_object") }),
  Schema.Struct({
    type: Schema.Literal("json_schema"),
    json_schema: Schema.Struct({
      name: Schema.String,
      description: optionalNullable(Schema.String),
      schema: optionalNullable(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
      strict: optionalNullable(Schema.Boolean)
    })
  })
)

/** The body of `POST /v1/chat/completions`, as far as the server reads it. */
export const ChatCompletionBody = Schema.Struct({
  model: optionalNullable(Schema.String),
  messages: Schema.Array(WireMessage).pipe(Schema.minItems(1, { message: () => "messages must not be empty" })),
  tools: optionalNullable(Schema.Array(WireTool)),
  tool_choice: optionalNullable(WireToolChoice),
  stream: optionalNullable(Schema.Boolean),
  stream_options: optionalNullable(Schema.Struct({
    include_usage: optionalNullable(Schema.Boolean),
    /** easyai: send the `easyai.*` SSE events (default false: a plain OpenAI stream; or the `X-Easyai-Events: on` header). */
    easyai_events: optionalNullable(Schema.Boolean),
    /** easyai: with the events on, send `easyai.prompt_progress` events too (default true). */
    easyai_prompt_progress: optionalNullable(Schema.Boolean),
    /** easyai: put a one-line indicator of each server-side tool call in the content stream (default false). */
    easyai_tool_indicators: optionalNullable(Schema.Boolean)
  })),
  temperature: optionalNullable(Schema.Number.pipe(Schema.between(0, 5))),
  top_p: optionalNullable(Schema.Number.pipe(Schema.between(0, 1))),
  top_k: optionalNullable(Schema.Int.pipe(Schema.nonNegative())),
  min_p: optionalNullable(Schema.Number.pipe(Schema.between(0, 1))),
  max_tokens: optionalNullable(Schema.Int.pipe(Schema.positive())),
  max_completion_tokens: optionalNullable(Schema.Int.pipe(Schema.positive())),
  stop: optionalNullable(Stop),
  response_format: optionalNullable(WireResponseFormat),
  n: optionalNullable(Schema.Literal(1)),
  /** easyai: this request's sampling preset (an inline prefix in the message still wins). */
  preset: optionalNullable(PresetName)
})
/** The body of `POST /v1/chat/completions`. */
export type ChatCompletionBody = typeof ChatCompletionBody.Type

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

/** What one stream chunk adds to the message. */
export const Delta = Schema.Struct({
  role: optionalNullable(Schema.String),
  content: optionalNullable(Schema.String),
  /** llama.cpp, DeepSeek. */
  reasoning_content: optionalNullable(Schema.String),
  /** vLLM, OpenRouter. */
  reasoning: optionalNullable(Schema.String),
  tool_calls: optionalNullable(Schema.Array(ToolCallDelta))
})
/** What one stream chunk adds to the message. */
export type Delta = typeof Delta.Type

/** Token accounting, as OpenAI reports it. */
export const WireUsage = Schema.Struct({
  prompt_tokens: optionalNullable(Schema.Number),
  completion_tokens: optionalNullable(Schema.Number),
  total_tokens: optionalNullable(Schema.Number),
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
    param: optionalNullable(Schema.String),
    n_prompt_tokens: optionalNullable(Schema.Number),
    n_ctx: optionalNullable(Schema.Number)
  })
)
/** An error a server reports in a body (a status body or a mid-stream chunk). */
export type WireError = typeof WireError.Type

/** The fields every response object starts with; servers other than OpenAI leave some out. */
const responseHeader = {
  id: optionalNullable(Schema.String),
  object: optionalNullable(Schema.String),
  created: optionalNullable(Schema.Number),
  model: optionalNullable(Schema.String)
}

/** One `data:` chunk of a streamed completion. */
export const CompletionChunk = Schema.Struct({
  ...responseHeader,
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
  ...responseHeader,
  choices: Schema.Array(Schema.Struct({
    index: optionalNullable(Schema.Number),
    message: optionalNullable(Schema.Struct({
      role: optionalNullable(Schema.String),
      content: optionalNullable(Schema.String),
      reasoning_content: optionalNullable(Schema.String),
      reasoning: optionalNullable(Schema.String),
      tool_calls: optionalNullable(Schema.Array(Schema.Struct({
        id: optionalNullable(Schema.String),
        type: optionalNullable(Schema.String),
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
  object: optionalNullable(Schema.String),
  data: Schema.Array(Schema.Struct({
    id: Schema.String,
    object: optionalNullable(Schema.String),
    owned_by: optionalNullable(Schema.String),
    created: optionalNullable(Schema.Number),
    /** llama.cpp's and easyai's facts about the model: easyai writes its backend and context size. */
    meta: optionalNullable(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
  }))
})
