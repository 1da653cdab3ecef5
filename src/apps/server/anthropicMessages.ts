/**
 * `POST /v1/messages` and `POST /v1/messages/count_tokens`: Anthropic's
 * Messages protocol around the shared turn. The answer is a `message`
 * object, or its stream of named events (`message_start`, a
 * `content_block_start` / `_delta` / `_stop` run per text or tool_use block,
 * `message_delta` with the stop reason and usage, `message_stop`); errors are
 * Anthropic's `{"type":"error","error":{…}}`. Reasoning is not sent: the
 * protocol's thinking blocks need a signature only Anthropic can make.
 *
 * @module
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Either, Option, Stream } from "effect"
import {
  CountTokensRequest,
  type ErrorObject,
  type MessageObject,
  MessagesRequest,
  type MessageUsage,
  type OutputBlock,
  type StopReason
} from "../../domain/anthropic/Messages.js"
import type { ChatModelError } from "../../domain/errors.js"
import { parseJson } from "../../domain/json.js"
import { SystemMessage } from "../../domain/Message.js"
import type { ToolCall } from "../../domain/ToolCall.js"
import type { Engine } from "../../services/Engine.js"
import { type ApiError, notFound } from "./ApiError.js"
import { messagesCall } from "./anthropicRequest.js"
import { CompletionBuilder } from "./completionBody.js"
import { decodeRequestBody, readJsonBody } from "./jsonBody.js"
import type { TurnEvent, TurnTally } from "./turnEvents.js"
import { type ChatContext, runWhole, sseHeaders, startTurn, streamedResponse } from "./turnPipeline.js"

/** Anthropic's error types by the OpenAI ones the server's errors carry. */
const errorType = (error: ApiError): string =>
  error.status === 413 ? "request_too_large" : error.status === 503 ? "overloaded_error" : error.status >= 500 ? "api_error" : error.type

const errorObject = (error: ApiError): ErrorObject => ({ type: "error", error: { type: errorType(error), message: error.detail } })

/** A failure as Anthropic's clients read it. */
export const anthropicError = (error: ApiError) =>
  HttpServerResponse.unsafeJson(errorObject(error), {
    status: error.status,
    ...(error.retryAfter === undefined ? {} : { headers: { "retry-after": String(error.retryAfter) } })
  })

const stopReason = (tally: TurnTally): StopReason =>
  tally.finishReason === "tool_calls" ? "tool_use" : tally.finishReason === "length" ? "max_tokens" : "end_turn"

const usage = (tally: TurnTally): MessageUsage => ({
  input_tokens: tally.promptTokens - tally.cachedTokens,
  output_tokens: tally.completionTokens,
  cache_read_input_tokens: tally.cachedTokens
})

const newMessageId = () => `msg_${globalThis.crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`

const toolUse = (call: ToolCall): OutputBlock => ({
  type: "tool_use",
  id: call.id,
  name: call.name,
  input: Either.getOrElse(parseJson(call.arguments), () => ({}))
})

const event = (name: string, data: Record<string, unknown>): string => `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`

/** Encodes one turn as Anthropic's stream events; owned by one response. */
class MessageStream {
  readonly tally: TurnTally
  private readonly builder = new CompletionBuilder()
  private blocks = 0
  private textOpen = false

  constructor(private readonly id: string, private readonly model: string) {
    this.tally = this.builder.tally
  }

  start(): string {
    const message: MessageObject = {
      id: this.id,
      type: "message",
      role: "assistant",
      model: this.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0 }
    }
    return event("message_start", { message })
  }

  private closeText(): string {
    if (!this.textOpen) return ""
    this.textOpen = false
    return event("content_block_stop", { index: this.blocks++ })
  }

  event(turnEvent: TurnEvent): string {
    this.builder.add(turnEvent)
    switch (turnEvent._tag) {
      case "TextDelta": {
        const opening = this.textOpen ? "" : event("content_block_start", { index: this.blocks, content_block: { type: "text", text: "" } })
        this.textOpen = true
        return opening + event("content_block_delta", { index: this.blocks, delta: { type: "text_delta", text: turnEvent.text } })
      }
      case "ToolCallRequested": {
        const closed = this.closeText()
        const index = this.blocks++
        const { call } = turnEvent
        return closed +
          event("content_block_start", { index, content_block: { type: "tool_use", id: call.id, name: call.name, input: {} } }) +
          event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: call.arguments } }) +
          event("content_block_stop", { index })
      }
      default:
        return ""
    }
  }

  finish(): string {
    return this.closeText() +
      event("message_delta", { delta: { stop_reason: stopReason(this.tally), stop_sequence: null }, usage: usage(this.tally) }) +
      event("message_stop", {})
  }

  fail(error: ApiError): string {
    return `event: error\ndata: ${JSON.stringify(errorObject(error))}\n\n`
  }
}

const streamed = (context: ChatContext, events: Stream.Stream<TurnEvent, ChatModelError>) => {
  const encoder = new MessageStream(newMessageId(), context.modelId)
  return streamedResponse(context, events, {
    start: () => encoder.start(),
    event: (turnEvent) => encoder.event(turnEvent),
    finish: () => encoder.finish(),
    fail: (failure) => encoder.fail(failure),
    tally: () => encoder.tally
  }, "text/event-stream", sseHeaders)
}

const whole = (context: ChatContext, events: Stream.Stream<TurnEvent, ChatModelError>) =>
  Effect.gen(function*() {
    const builder = new CompletionBuilder()
    yield* runWhole(context, events, (turnEvent) => builder.add(turnEvent), () => builder.tally)
    const { calls, text } = builder.answer()
    const message: MessageObject = {
      id: newMessageId(),
      type: "message",
      role: "assistant",
      model: context.modelId,
      content: [...(text === "" ? [] : [{ type: "text" as const, text }]), ...calls.map(toolUse)],
      stop_reason: stopReason(builder.tally),
      stop_sequence: null,
      usage: usage(builder.tally)
    }
    return HttpServerResponse.unsafeJson(message)
  })

/** `POST /v1/messages`. */
export const messages = (context: ChatContext) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const body = yield* decodeRequestBody(MessagesRequest, yield* readJsonBody(context.limits))
    const call = yield* messagesCall(body)
    const events = yield* startTurn(context, call, request.headers["x-easyai-inject"])
    return call.stream ? yield* streamed(context, events) : yield* whole(context, events)
  }).pipe(Effect.catchTag("ApiError", (error) => Effect.succeed(anthropicError(error))))

/** `POST /v1/messages/count_tokens`: the prompt's tokens as the local model's chat template renders them. */
export const countTokens = (context: ChatContext, engine: Option.Option<Engine["Type"]>) =>
  Effect.gen(function*() {
    const body = yield* decodeRequestBody(CountTokensRequest, yield* readJsonBody(context.limits))
    if (Option.isNone(engine)) return yield* Effect.fail(notFound("counting tokens needs a local model", "count_tokens_not_supported"))
    const call = yield* messagesCall({ ...body, max_tokens: 1 })
    const system = call.system === undefined ? [] : [new SystemMessage({ content: call.system })]
    const input_tokens = engine.value.countTokens({ messages: [...system, ...call.messages], tools: call.clientTools ?? [] })
    return HttpServerResponse.unsafeJson({ input_tokens })
  }).pipe(Effect.catchTag("ApiError", (error) => Effect.succeed(anthropicError(error))))
