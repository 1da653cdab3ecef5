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
import {
  announceCorrection,
  classify,
  maxAnnounceRetries,
  maxIncompleteRetries,
  maxThoughtRetries
} from "./retryPolicy.js"

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
            })
          )

        const answer = (turn: TurnSummary, text: string) =>
          Effect.gen(function*() {
            const message = new AssistantMessage({
              content: text,
              ...(turn.reasoning === "" ? {} : { reasoning: turn.reasoning })
            })
            yield* emit(new MessagesAppended({ messages: [message] }))
            yield* finish(text, turn.reasoning, turn.finishReason === "length" ? "Length" : "Stop")
          })

        while (true) {
          const tools = yield* registry.specs
          const turn = yield* runModelTurn(model, {
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
            yield* emit(new HopReset({ reason: "Incomplete", attempt: incompleteRetries }))
            continue
          }

          switch (classify(turn, tools.length > 0)) {
            case "ThoughtOnly": {
              if (thoughtRetries < maxThoughtRetries) {
                thoughtRetries++
                yield* emit(new HopReset({ reason: "ThoughtOnly", attempt: thoughtRetries }))
                continue
              }
              yield* emit(new TextDelta({ text: turn.reasoning }))
              return yield* answer(turn, turn.reasoning)
            }
            case "AnnounceOnly": {
              if (announceRetries < maxAnnounceRetries) {
                announceRetries++
                correction = [new UserMessage({ content: announceCorrection })]
                yield* emit(new HopReset({ reason: "AnnounceOnly", attempt: announceRetries }))
                continue
              }
              return yield* answer(turn, turn.text)
            }
            case "Answer":
              return yield* answer(turn, turn.text)
            case "ToolCalls": {
              const assistant = new AssistantMessage({
                content: turn.text,
                ...(turn.reasoning === "" ? {} : { reasoning: turn.reasoning }),
                toolCalls: turn.toolCalls
              })
              const results = yield* dispatchToolCalls(turn.toolCalls, approval, registry, emit)
              conversation.push(assistant, ...results)
              yield* emit(new MessagesAppended({ messages: [assistant, ...results] }))
              hops++
              correction = []
              thoughtRetries = 0
              if (turn.text.trim() !== "") partial = turn.text
              if (hops >= maxHops) return yield* finish(partial, "", "HopLimitReached")
            }
          }
        }
      })

    const run = (input: RunInput): Stream.Stream<AgentEvent, AgentError> =>
      Stream.unwrapScoped(Effect.gen(function*() {
        const queue = yield* Queue.bounded<Take.Take<AgentEvent, AgentError>>(options.bufferSize ?? 64)
        const emit = (event: AgentEvent) => Effect.asVoid(Queue.offer(queue, Take.of(event)))
        yield* loop(input, emit).pipe(
          Effect.onExit((exit) => Queue.offer(queue, Exit.isSuccess(exit) ? Take.end : Take.failCause(exit.cause))),
          Effect.forkScoped
        )
        return Stream.fromQueue(queue).pipe(Stream.flattenTake)
      })).pipe(Stream.withSpan("Agent.run"))

    return { run }
  }
})

/** The loop, on the `ChatModel`, `ToolRegistry` and `Approval` in context. */
export const layer = (options: Options = {}): Layer.Layer<Agent, never, ChatModel | ToolRegistry | Approval> =>
  Layer.effect(Agent, Effect.map(make, (build) => build(options)))
