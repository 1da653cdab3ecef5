/**
 * `POST /v1/chat/completions`, the "server as competitor" way:
 *
 * | the request brings | the server does |
 * |---|---|
 * | a system message | uses the last one; else composes its own |
 * | `tools` | one model pass; tool calls go back to the client (`finish_reason: tool_calls`) |
 * | no `tools` | runs its own toolbelt through the agent loop, server-side |
 * | sampling fields | applies them to this request; else the current preset |
 *
 * The decoding of OpenAI's request and the encoding of its answer, as SSE
 * chunks or one completion, around the shared turn ({@link startTurn}).
 * A failure after a stream started is an error chunk before `[DONE]`.
 *
 * @module
 */
import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Clock, Effect, type Scope, Stream } from "effect"
import type { ChatModelError } from "../../domain/errors.js"
import { type ApiError, toResponse } from "./ApiError.js"
import { type ChatCall, parseChatCall } from "./chatRequest.js"
import { CompletionBuilder } from "./completionBody.js"
import { readJsonBody } from "./jsonBody.js"
import { SseEncoder } from "./sseEncoder.js"
import { newIdentity, type TurnEvent } from "./turnEvents.js"
import { type ChatContext, onOffHeader, runWhole, sseHeaders, startTurn, streamedResponse } from "./turnPipeline.js"

const streamed = (context: ChatContext, call: ChatCall, events: Stream.Stream<TurnEvent, ChatModelError>) =>
  Effect.gen(function*() {
    const encoder = new SseEncoder(newIdentity(context.modelId, yield* Clock.currentTimeMillis), call.streamOptions)
    return yield* streamedResponse(context, events, {
      start: () => encoder.start(),
      event: (event) => encoder.event(event),
      finish: () => encoder.finish(),
      fail: (failure) => encoder.fail(failure),
      tally: () => encoder.totals
    }, "text/event-stream", sseHeaders)
  })

const whole = (context: ChatContext, events: Stream.Stream<TurnEvent, ChatModelError>) =>
  Effect.gen(function*() {
    const builder = new CompletionBuilder()
    yield* runWhole(context, events, (event) => builder.add(event), () => builder.tally)
    return HttpServerResponse.unsafeJson(builder.build(newIdentity(context.modelId, yield* Clock.currentTimeMillis)))
  })

const serve = (context: ChatContext): Effect.Effect<HttpServerResponse.HttpServerResponse, ApiError, HttpServerRequest.HttpServerRequest | Scope.Scope> =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    // One model is served, so any `model` name means it, as with llama-server: clients that insist on their own names work.
    const parsed = yield* parseChatCall(yield* readJsonBody(context.limits))
    // easyai's own events only for a client that asks (the web UI, the CLI): a plain OpenAI client reads every chunk's choices.
    const optedIn = parsed.streamOptions.events ?? (yield* onOffHeader("X-Easyai-Events", request.headers["x-easyai-events"])) ?? false
    const call = { ...parsed, streamOptions: { ...parsed.streamOptions, events: optedIn } }
    const events = yield* startTurn(context, call, request.headers["x-easyai-inject"])
    return call.stream ? yield* streamed(context, call, events) : yield* whole(context, events)
  })

/** The route's handler. */
export const chatCompletions = (context: ChatContext) =>
  serve(context).pipe(Effect.catchTag("ApiError", (error) => Effect.succeed(toResponse(error))))
