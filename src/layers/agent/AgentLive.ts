/**
 * The agentic loop.
 *
 * ```
 * loop (≤ maxToolHops):
 *   model turn ── tool calls? ── approval + registry ── append results ── loop
 *              ├─ thought-only / announce-only → HopReset, ask again
 *              └─ answer → TurnComplete
 * ```
 *
 * The loop runs as its reader reads: each event is produced when the
 * reader asks for it, on the reader's fiber, so a slow reader pauses the
 * loop and an interrupted one stops it where it is (a generation, a tool).
 * No fiber is forked and nothing is handed over through a queue, which on
 * the token path cost every delivery a fiber switch.
 *
 * @module
 */
import { Channel, type Chunk, Effect, Layer, Stream, type Tracer } from "effect"
import {
  type AgentEvent,
  HopReset,
  MessagesAppended,
  type StopReason,
  TextDelta,
  TurnComplete
} from "../../domain/AgentEvent.js"
import { AssistantMessage, type ChatMessage, UserMessage } from "../../domain/Message.js"
import { Agent, type AgentError, type RunInput, type Service } from "../../services/Agent.js"
import { Approval } from "../../services/Approval.js"
import { ChatModel } from "../../services/ChatModel.js"
import { ToolRegistry } from "../../services/ToolRegistry.js"
import { dispatchToolCalls } from "./dispatch.js"
import { modelTurn, type TurnSummary } from "./modelTurn.js"
import {
  announceCorrection,
  classify,
  maxAnnounceRetries,
  maxIncompleteRetries,
  maxThoughtRetries
} from "./retryPolicy.js"
import { spannedStream } from "../tracing/spannedStream.js"

/** Options of {@link layer}. */
export interface Options {
  /**
   * Tool hops per user turn. Default 8, or 99999 while a `bash` tool is
   * registered (shell work legitimately takes many steps).
   */
  readonly maxToolHops?: number
  /**
   * Lets the loop run ahead of a slow reader, in a fiber of its own, by up
   * to this many events. Unset (the default), the loop runs as the reader
   * reads and nothing waits in between.
   */
  readonly bufferSize?: number
}

/**
 * The loop's own events and messages are built from values that are already
 * checked (the model's events, the registry's results, the loop's counters):
 * checking them against their Schemas again would cost every turn and could
 * catch nothing.
 */
const trusted = true

/** The default hop budget. */
export const defaultMaxToolHops = 8
/** The hop budget while `bash` is registered. */
export const bashMaxToolHops = 99_999

const make = Effect.gen(function*() {
  const model = yield* ChatModel
  const registry = yield* ToolRegistry
  const approval = yield* Approval
  return (options: Options): Service => {
    const hopBudget = (input: RunInput) =>
      input.maxToolHops !== undefined
        ? Effect.succeed(input.maxToolHops)
        : options.maxToolHops !== undefined
        ? Effect.succeed(options.maxToolHops)
        : Effect.map(registry.has("bash"), (bash) => (bash ? bashMaxToolHops : defaultMaxToolHops))

    const loop = (input: RunInput, runSpan: Tracer.AnySpan) =>
      Effect.gen(function*() {
        const maxHops = yield* hopBudget(input)
        const info = yield* model.info
        const conversation: Array<ChatMessage> = [...input.messages]
        let correction: ReadonlyArray<ChatMessage> = []
        let hops = 0
        let thoughtRetries = 0
        let announceRetries = 0
        let incompleteRetries = 0
        let partial = ""
        let next: "again" | "done" = "again"

        const finish = (text: string, reasoning: string, stopReason: StopReason): AgentEvent =>
          new TurnComplete({
            text,
            ...(reasoning === "" ? {} : { reasoning }),
            stopReason,
            hops
          }, trusted)

        /** The run's last events: no hop follows the one that returns them. */
        const done = (...events: ReadonlyArray<AgentEvent>): Stream.Stream<AgentEvent> => {
          next = "done"
          return Stream.fromIterable(events)
        }

        /** The turn streamed so far is dropped and asked again: a `HopReset`, and the reason on the hop's span. */
        const retry = (span: Tracer.Span, reason: HopReset["reason"], attempt: number): Stream.Stream<AgentEvent> => {
          span.attribute("easyai.retry.reason", reason)
          span.attribute("easyai.retry.attempt", attempt)
          return Stream.succeed(new HopReset({ reason, attempt }, trusted))
        }

        const answer = (turn: TurnSummary, text: string, ...before: ReadonlyArray<AgentEvent>) => {
          const message = new AssistantMessage({
            content: text,
            ...(turn.reasoning === "" ? {} : { reasoning: turn.reasoning })
          }, trusted)
          return done(
            ...before,
            new MessagesAppended({ messages: [message] }, trusted),
            finish(text, turn.reasoning, turn.finishReason === "length" ? "Length" : "Stop")
          )
        }

        /** What follows a finished model turn: its tool calls, or a retry, or the answer. */
        const decide = (
          turn: TurnSummary,
          toolsAvailable: boolean,
          span: Tracer.Span
        ): Effect.Effect<Stream.Stream<AgentEvent, AgentError>> =>
          Effect.gen(function*() {
            if (turn.cut !== undefined) {
              if (incompleteRetries >= maxIncompleteRetries) return Stream.fail(turn.cut)
              incompleteRetries++
              yield* Effect.logWarning(`the model's stream broke before an answer (${turn.cut.message}); asking again`)
              return retry(span, "Incomplete", incompleteRetries)
            }

            const outcome = classify(turn, toolsAvailable)
            span.attribute("easyai.hop.outcome", outcome)
            switch (outcome) {
              case "ThoughtOnly": {
                if (thoughtRetries < maxThoughtRetries) {
                  thoughtRetries++
                  return retry(span, "ThoughtOnly", thoughtRetries)
                }
                return answer(turn, turn.reasoning, new TextDelta({ text: turn.reasoning }, trusted))
              }
              case "AnnounceOnly": {
                if (announceRetries < maxAnnounceRetries) {
                  announceRetries++
                  correction = [new UserMessage({ content: announceCorrection }, trusted)]
                  return retry(span, "AnnounceOnly", announceRetries)
                }
                return answer(turn, turn.text)
              }
              case "Answer":
                return answer(turn, turn.text)
              case "ToolCalls": {
                const assistant = new AssistantMessage({
                  content: turn.text,
                  ...(turn.reasoning === "" ? {} : { reasoning: turn.reasoning }),
                  toolCalls: turn.toolCalls
                }, trusted)
                const dispatch = dispatchToolCalls(turn.toolCalls, approval, registry, span)
                return Stream.concat(
                  dispatch.events,
                  Stream.suspend(() => {
                    conversation.push(assistant, ...dispatch.results)
                    const appended = new MessagesAppended({ messages: [assistant, ...dispatch.results] }, trusted)
                    hops++
                    correction = []
                    thoughtRetries = 0
                    if (turn.text.trim() !== "") partial = turn.text
                    return hops >= maxHops ? done(appended, finish(partial, "", "HopLimitReached")) : Stream.succeed(appended)
                  })
                )
              }
            }
          })

        /** One hop: a model turn, then what follows it. The `Agent.hop` span. */
        const hop = (): Stream.Stream<AgentEvent, AgentError> =>
          spannedStream("Agent.hop", { parent: runSpan, attributes: { "easyai.hop": hops } }, (span) =>
            Effect.map(registry.specs, (tools) => {
              const turn = modelTurn(model, info, {
                messages: [...conversation, ...correction],
                tools,
                toolChoice: hops === 0 && input.toolChoice !== undefined ? input.toolChoice : "auto",
                ...(input.sampling === undefined ? {} : { sampling: input.sampling }),
                ...(input.maxTokens === undefined ? {} : { maxTokens: input.maxTokens }),
                ...(input.stop === undefined ? {} : { stop: input.stop }),
                ...(input.responseFormat === undefined ? {} : { responseFormat: input.responseFormat })
              }, span)
              return Stream.concat(turn.events, Stream.unwrap(Effect.suspend(() => decide(turn.summary(), tools.length > 0, span))))
            }))

        // A hop starts once the previous one has been read to its end; the channel loops, it does not nest.
        const hopsFromHere: Channel.Channel<Chunk.Chunk<AgentEvent>, unknown, AgentError, unknown, unknown, unknown> = Channel
          .suspend(() => next === "again" ? Channel.zipRight(Stream.toChannel(hop()), hopsFromHere) : Channel.void)
        return Stream.fromChannel(hopsFromHere)
      })

    const run = (input: RunInput): Stream.Stream<AgentEvent, AgentError> => {
      const events = spannedStream(
        "Agent.run",
        { attributes: { "gen_ai.operation.name": "invoke_agent" } },
        (span) => loop(input, span)
      )
      return options.bufferSize === undefined ? events : Stream.buffer(events, { capacity: options.bufferSize })
    }

    return { run }
  }
})

/** The loop, on the `ChatModel`, `ToolRegistry` and `Approval` in context. */
export const layer = (options: Options = {}): Layer.Layer<Agent, never, ChatModel | ToolRegistry | Approval> =>
  Layer.effect(Agent, Effect.map(make, (build) => build(options)))
