/**
 * `POST /api/chat` and `POST /api/generate`: Ollama's protocol around the
 * shared turn, for the front-ends and libraries that speak it. Answers
 * stream as NDJSON by default (one JSON object per line, the last with
 * `done: true` and the counts), or come whole with `stream: false`; errors
 * are Ollama's `{"error": "…"}`. Ollama's tool calls carry no ids: the
 * server names them in order, and a `tool` message answers the oldest
 * unanswered call (of its `tool_name`, when it gives one).
 *
 * @module
 */
import { HttpServerResponse } from "@effect/platform"
import { Clock, Effect, Either, Stream } from "effect"
import type { ChatModelError } from "../../domain/errors.js"
import { parseJson } from "../../domain/json.js"
import { AssistantMessage, type ChatMessage, ToolMessage, UserMessage } from "../../domain/Message.js"
import {
  type OllamaChatRequest,
  OllamaChatRequest as ChatRequestSchema,
  type OllamaCounts,
  type OllamaGenerateRequest,
  OllamaGenerateRequest as GenerateRequestSchema,
  type OllamaMessage
} from "../../domain/ollama/Chat.js"
import type { ResponseFormat } from "../../domain/ResponseFormat.js"
import { ToolCall } from "../../domain/ToolCall.js"
import { type ApiError, badRequest } from "./ApiError.js"
import { type ChatCall, declaredToolSpecs, wireSampling } from "./chatRequest.js"
import { CompletionBuilder } from "./completionBody.js"
import { decodeRequestBody, readJsonBody } from "./jsonBody.js"
import type { TurnEvent, TurnTally } from "./turnEvents.js"
import { type ChatContext, runWhole, startTurn, streamedResponse } from "./turnPipeline.js"

/** A failure as Ollama's clients read it. */
export const ollamaError = (error: ApiError) => HttpServerResponse.unsafeJson({ error: error.detail }, { status: error.status })

const formatOf = (format: OllamaChatRequest["format"]): ResponseFormat | undefined =>
  format === undefined || format === null || format === ""
    ? undefined
    : format === "json"
    ? { type: "json_object" }
    : { type: "json_schema", name: "format", schema: format }

const optionsOf = (options: OllamaChatRequest["options"]) => {
  // Ollama's -1 (unbounded) and -2 (fill the context) both mean no limit of the request's own.
  const predict = options?.num_predict
  return {
    sampling: wireSampling(options ?? {}),
    maxTokens: predict !== undefined && predict !== null && predict > 0 ? predict : undefined,
    stop: options?.stop ?? undefined
  }
}

/** The conversation, the system text apart; tool calls get ids, tool results the id of the call they answer. */
const conversationOf = (wire: ReadonlyArray<OllamaMessage>): Either.Either<{ system: string | undefined; messages: ReadonlyArray<ChatMessage> }, ApiError> => {
  const systems: Array<string> = []
  const messages: Array<ChatMessage> = []
  const pending: Array<{ readonly id: string; readonly name: string }> = []
  for (const [index, message] of wire.entries()) {
    const content = message.content ?? ""
    if (message.images !== undefined && message.images !== null && message.images.length > 0) {
      return Either.left(badRequest(`messages[${index}]: images are not supported`, `messages[${index}].images`))
    }
    switch (message.role) {
      case "system":
        systems.push(content)
        break
      case "user":
        messages.push(new UserMessage({ content }))
        break
      case "assistant": {
        const calls = (message.tool_calls ?? []).map((call, at) => new ToolCall({ id: `call_${index}_${at}`, name: call.function.name, arguments: JSON.stringify(call.function.arguments) }))
        pending.push(...calls.map((call) => ({ id: call.id, name: call.name })))
        messages.push(new AssistantMessage({ content, toolCalls: calls, ...(message.thinking ? { reasoning: message.thinking } : {}) }))
        break
      }
      case "tool": {
        const at = pending.findIndex((call) => message.tool_name === undefined || message.tool_name === null || call.name === message.tool_name)
        const answered = pending[at]
        if (answered === undefined) {
          return Either.left(badRequest(`messages[${index}]: a tool message answers no earlier tool call`, `messages[${index}]`))
        }
        pending.splice(at, 1)
        messages.push(new ToolMessage({ toolCallId: answered.id, name: answered.name, content }))
        break
      }
    }
  }
  return Either.right({ system: systems.length === 0 ? undefined : systems.join("\n\n"), messages })
}

const plainStream = { includeUsage: false, events: false, promptProgress: false, toolIndicators: false }

const chatCall = (request: OllamaChatRequest): Either.Either<ChatCall, ApiError> =>
  Either.gen(function*() {
    const { messages, system } = yield* conversationOf(request.messages)
    const clientTools = request.tools === undefined || request.tools === null || request.tools.length === 0
      ? undefined
      : yield* declaredToolSpecs(request.tools.map((tool, index) => ({
        where: `tools[${index}].function`,
        name: tool.function.name,
        description: tool.function.description ?? "",
        parameters: tool.function.parameters ?? undefined
      })))
    return {
      model: request.model,
      system,
      messages,
      clientTools,
      toolChoice: undefined,
      responseFormat: formatOf(request.format),
      preset: undefined,
      ...optionsOf(request.options),
      stream: request.stream ?? true,
      streamOptions: plainStream
    }
  })

const generateCall = (request: OllamaGenerateRequest): ChatCall => ({
  model: request.model,
  system: request.system ?? undefined,
  messages: [new UserMessage({ content: request.prompt })],
  clientTools: undefined,
  toolChoice: "none",
  responseFormat: formatOf(request.format),
  preset: undefined,
  ...optionsOf(request.options),
  stream: request.stream ?? true,
  streamOptions: plainStream
})

/** Which of Ollama's two answer shapes: chat's `message`, or generate's `response`. */
type Shape = "chat" | "generate"

/** The counts of the last line; durations in nanoseconds, the generation's from its reported speed. */
const counts = (tally: TurnTally, elapsedMillis: number): OllamaCounts => {
  const total = Math.round(elapsedMillis * 1e6)
  const evalDuration = tally.tokensPerSecond === undefined || tally.tokensPerSecond <= 0
    ? 0
    : Math.min(total, Math.round((tally.completionTokens / tally.tokensPerSecond) * 1e9))
  return {
    done: true,
    done_reason: tally.finishReason === "length" ? "length" : "stop",
    total_duration: total,
    load_duration: 0,
    prompt_eval_count: tally.promptTokens,
    prompt_eval_duration: total - evalDuration,
    eval_count: tally.completionTokens,
    eval_duration: evalDuration
  }
}

const toolCalls = (calls: ReadonlyArray<ToolCall>) =>
  calls.map((call) => ({ function: { name: call.name, arguments: Either.getOrElse(parseJson(call.arguments), () => ({})) } }))

/** One line of an answer: its text (and reasoning, tool calls) so far or in this piece. */
const piece = (shape: Shape, model: string, createdAt: string, text: string, extra: { readonly thinking?: string; readonly calls?: ReadonlyArray<ToolCall> }) =>
  shape === "chat"
    ? {
      model,
      created_at: createdAt,
      message: {
        role: "assistant",
        content: text,
        ...(extra.thinking === undefined || extra.thinking === "" ? {} : { thinking: extra.thinking }),
        ...(extra.calls === undefined || extra.calls.length === 0 ? {} : { tool_calls: toolCalls(extra.calls) })
      }
    }
    : { model, created_at: createdAt, response: text, ...(extra.thinking === undefined || extra.thinking === "" ? {} : { thinking: extra.thinking }) }

const line = (value: unknown): string => `${JSON.stringify(value)}\n`

const streamed = (context: ChatContext, shape: Shape, events: Stream.Stream<TurnEvent, ChatModelError>, startedAt: number) => {
  const builder = new CompletionBuilder()
  const createdAt = () => new Date().toISOString()
  const event = (turnEvent: TurnEvent): string => {
    builder.add(turnEvent)
    switch (turnEvent._tag) {
      case "TextDelta":
        return line({ ...piece(shape, context.modelId, createdAt(), turnEvent.text, {}), done: false })
      case "ReasoningDelta":
        return line({ ...piece(shape, context.modelId, createdAt(), "", { thinking: turnEvent.text }), done: false })
      case "ToolCallRequested":
        return shape === "chat" ? line({ ...piece(shape, context.modelId, createdAt(), "", { calls: [turnEvent.call] }), done: false }) : ""
      default:
        return ""
    }
  }
  return streamedResponse(context, events, {
    start: () => "",
    event,
    finish: () => line({ ...piece(shape, context.modelId, createdAt(), "", {}), ...counts(builder.tally, performance.now() - startedAt) }),
    fail: (failure) => line({ error: failure.detail }),
    tally: () => builder.tally
  }, "application/x-ndjson")
}

const whole = (context: ChatContext, shape: Shape, events: Stream.Stream<TurnEvent, ChatModelError>, startedAt: number) =>
  Effect.gen(function*() {
    const builder = new CompletionBuilder()
    yield* runWhole(context, events, (event) => builder.add(event), () => builder.tally)
    const { calls, reasoning, text } = builder.answer()
    const createdAt = new Date(yield* Clock.currentTimeMillis).toISOString()
    return HttpServerResponse.unsafeJson({
      ...piece(shape, context.modelId, createdAt, text, { thinking: reasoning, calls }),
      ...counts(builder.tally, performance.now() - startedAt)
    })
  })

const answer = (context: ChatContext, shape: Shape, call: ChatCall) =>
  Effect.gen(function*() {
    const startedAt = performance.now()
    const events = yield* startTurn(context, call, undefined)
    return call.stream ? yield* streamed(context, shape, events, startedAt) : yield* whole(context, shape, events, startedAt)
  })

/** `POST /api/chat`. */
export const ollamaChat = (context: ChatContext) =>
  Effect.gen(function*() {
    const request = yield* decodeRequestBody(ChatRequestSchema, yield* readJsonBody(context.limits))
    return yield* answer(context, "chat", yield* chatCall(request))
  }).pipe(Effect.catchTag("ApiError", (error) => Effect.succeed(ollamaError(error))))

/** `POST /api/generate`. */
export const ollamaGenerate = (context: ChatContext) =>
  Effect.gen(function*() {
    const request = yield* decodeRequestBody(GenerateRequestSchema, yield* readJsonBody(context.limits))
    return yield* answer(context, "generate", generateCall(request))
  }).pipe(Effect.catchTag("ApiError", (error) => Effect.succeed(ollamaError(error))))
