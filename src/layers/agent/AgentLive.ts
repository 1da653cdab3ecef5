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
 * @module
 */
import { Effect, Exit, Layer, Queue, Stream, Take } from "effect"
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
import { runModelTurn, type TurnSummary } from "./modelTurn.js"
import { fromTakes } from "./takeStream.js"
import {
  announceCorrection,
  classify,
  maxAnnounceRetries,
  maxIncompleteRetries,
  maxThoughtRetries
} from "./retryPolicy.js"
import { spannedStream, turnSpanOptions } from "../tracing/spannedStream.js"

/** Options of {@link layer}. */
export interface Options {
  /**
   * Tool hops per user turn. Default 8, or 99999 while a `bash` tool is
   * registered (shell work legitimately takes many steps).
   */
  readonly maxToolHops?: number
  /** How many events may wait for a slow consumer before the loop pauses. */
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

    const loop = (input: RunInput, emit: (event: AgentEvent) => Effect.Effect<void>) =>
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

        const finish = (text: string, reasoning: string, stopReason: StopReason) =>
          emit(
            new TurnComplete({
              text,
              ...(reasoning === "" ? {} : { reasoning }),
              stopReason,
              hops
            }, trusted)
          )

        /** The turn streamed so far is dropped and asked again: a `HopReset`, and the reason on the hop's span. */
        const retry = (reason: HopReset["reason"], attempt: number) =>
          Effect.zipRight(
            Effect.annotateCurrentSpan({ "easyai.retry.reason": reason, "easyai.retry.attempt": attempt }),
            emit(new HopReset({ reason, attempt }, trusted))
          )

        const answer = (turn: TurnSummary, text: string) =>
          Effect.gen(function*() {
            const message = new AssistantMessage({
              content: text,
              ...(turn.reasoning === "" ? {} : { reasoning: turn.reasoning })
            }, trusted)
            yield* emit(new MessagesAppended({ messages: [message] }, trusted))
            yield* finish(text, turn.reasoning, turn.finishReason === "length" ? "Length" : "Stop")
          })

        /** One hop: a model turn, then its tool calls, or a retry, or the answer. The `Agent.hop` span. */
        const hop = Effect.gen(function*() {
          const tools = yield* registry.specs
          const turn = yield* runModelTurn(model, info, {
            messages: [...conversation, ...correction],
            tools,
            toolChoice: hops === 0 && input.toolChoice !== undefined ? input.toolChoice : "auto",
            ...(input.sampling === undefined ? {} : { sampling: input.sampling }),
            ...(input.maxTokens === undefined ? {} : { maxTokens: input.maxTokens }),
            ...(input.stop === undefined ? {} : { stop: input.stop }),
            ...(input.responseFormat === undefined ? {} : { responseFormat: input.responseFormat })
          }, emit)

          if (turn.cut !== undefined) {
            if (incompleteRetries >= maxIncompleteRetries) return yield* Effect.fail(turn.cut)
            incompleteRetries++
            yield* Effect.logWarning(`the model's stream broke before an answer (${turn.cut.message}); asking again`)
            yield* retry("Incomplete", incompleteRetries)
            return "again"
          }

          const outcome = classify(turn, tools.length > 0)
          yield* Effect.annotateCurrentSpan("easyai.hop.outcome", outcome)
          switch (outcome) {
            case "ThoughtOnly": {
              if (thoughtRetries < maxThoughtRetries) {
                thoughtRetries++
                yield* retry("ThoughtOnly", thoughtRetries)
                return "again"
              }
              yield* emit(new TextDelta({ text: turn.reasoning }, trusted))
              yield* answer(turn, turn.reasoning)
              return "done"
            }
            case "AnnounceOnly": {
              if (announceRetries < maxAnnounceRetries) {
                announceRetries++
                correction = [new UserMessage({ content: announceCorrection }, trusted)]
                yield* retry("AnnounceOnly", announceRetries)
                return "again"
              }
              yield* answer(turn, turn.text)
              return "done"
            }
            case "Answer":
              yield* answer(turn, turn.text)
              return "done"
            case "ToolCalls": {
              const assistant = new AssistantMessage({
                content: turn.text,
                ...(turn.reasoning === "" ? {} : { reasoning: turn.reasoning }),
                toolCalls: turn.toolCalls
              }, trusted)
              const results = yield* dispatchToolCalls(turn.toolCalls, approval, registry, emit)
              conversation.push(assistant, ...results)
              yield* emit(new MessagesAppended({ messages: [assistant, ...results] }, trusted))
              hops++
              correction = []
              thoughtRetries = 0
              if (turn.text.trim() !== "") partial = turn.text
              if (hops >= maxHops) {
                yield* finish(partial, "", "HopLimitReached")
                return "done"
              }
              return "again"
            }
          }
        })

        let next: "again" | "done" = "again"
        while (next === "again") {
          next = yield* hop.pipe(Effect.withSpan("Agent.hop", { ...turnSpanOptions, attributes: { "easyai.hop": hops } }))
        }
      })

    const run = (input: RunInput): Stream.Stream<AgentEvent, AgentError> =>
      spannedStream("Agent.run", { attributes: { "gen_ai.operation.name": "invoke_agent" } }, () =>
        Effect.gen(function*() {
          const queue = yield* Queue.bounded<Take.Take<AgentEvent, AgentError>>(options.bufferSize ?? 64)
          const emit = (event: AgentEvent) => Effect.asVoid(Queue.offer(queue, Take.of(event)))
          // Forked under the run's span: the hops' spans are its children.
          yield* loop(input, emit).pipe(
            Effect.onExit((exit) => Queue.offer(queue, Exit.isSuccess(exit) ? Take.end : Take.failCause(exit.cause))),
            Effect.forkScoped
          )
          return fromTakes(queue)
        }))

    return { run }
  }
})

/** The loop, on the `ChatModel`, `ToolRegistry` and `Approval` in context. */
export const layer = (options: Options = {}): Layer.Layer<Agent, never, ChatModel | ToolRegistry | Approval> =>
  Layer.effect(Agent, Effect.map(make, (build) => build(options)))
