/**
 * A `ChatModel` that replays scripted turns: deterministic tests of agents,
 * sessions and servers, for this library and for applications built on it.
 *
 * ```ts
 * const model = ScriptedChatModel.layer([
 *   ScriptedChatModel.toolCall("get_weather", { city: "Lisbon" }),
 *   ScriptedChatModel.reply("It is 23 °C and sunny in Lisbon.")
 * ])
 * ```
 *
 * Each `stream` call plays the next turn; the requests it received can be
 * read back through the `ScriptedChatModel` tag.
 *
 * @module
 */
import { Context, type Duration, Effect, Layer, Ref, Schema, Stream } from "effect"
import { type ChatModelError, ModelError } from "../../domain/errors.js"
import {
  type FinishReason,
  Finished,
  ModelEvent,
  ReasoningDelta,
  TextDelta,
  ToolCallRequested,
  Usage
} from "../../domain/ModelEvent.js"
import { ToolCall } from "../../domain/ToolCall.js"
import { ChatModel, type ChatRequest } from "../../services/ChatModel.js"

/** One step of a scripted turn. */
export type Step =
  | ModelEvent
  | { readonly _tag: "Delay"; readonly duration: Duration.DurationInput }
  | { readonly _tag: "Fail"; readonly error: ChatModelError }

/** One scripted assistant turn. */
export type Turn = ReadonlyArray<Step>

/**
 * A script as JSON: `{ "turns": [[event, …], …] }`, each event a
 * `ModelEvent` in its encoded form (`{ "_tag": "TextDelta", "text": "…" }`)
 * or `{ "_tag": "Fail", "error": { "_tag": "ModelError", … } }`. What
 * `easyai replay FILE.jsonl --to-script` prints; decode it with
 * `Schema.decodeUnknown(Script)` and pass its `turns` to {@link layer}.
 */
export const Script = Schema.Struct({
  turns: Schema.Array(Schema.Array(Schema.Union(
    ModelEvent,
    Schema.Struct({ _tag: Schema.Literal("Fail"), error: ModelError })
  )))
})
/** A script as JSON. */
export type Script = typeof Script.Type

/** Emits visible text, one event per chunk. */
export const text = (...chunks: ReadonlyArray<string>): ReadonlyArray<Step> =>
  chunks.map((chunk) => new TextDelta({ text: chunk }))

/** Emits reasoning text, one event per chunk. */
export const reasoning = (...chunks: ReadonlyArray<string>): ReadonlyArray<Step> =>
  chunks.map((chunk) => new ReasoningDelta({ text: chunk }))

/** Emits a tool call; its id is `call_<n>` unless given. */
export const call = (name: string, args: unknown, id?: string): Step =>
  new ToolCallRequested({ call: new ToolCall({ id: id ?? "", name, arguments: JSON.stringify(args) }) })

/** Pauses the stream (on the TestClock in tests). */
export const delay = (duration: Duration.DurationInput): Step => ({ _tag: "Delay", duration })

/** Fails the stream with a model error. */
export const fail = (error: ChatModelError): Step => ({ _tag: "Fail", error })

/** Ends the turn with a finish reason (added automatically when a turn has none). */
export const finish = (reason: FinishReason): Step => new Finished({ reason })

/** Reports token usage. */
export const usage = (promptTokens: number, completionTokens: number): Step =>
  new Usage({ promptTokens, completionTokens })

/** A turn that answers with `answer`, streamed word by word. */
export const reply = (answer: string): Turn => text(...streamChunks(answer))

/** A turn that calls one tool, optionally after some text. */
export const toolCall = (name: string, args: unknown, options: { readonly text?: string; readonly id?: string } = {}): Turn => [
  ...(options.text === undefined ? [] : reply(options.text)),
  call(name, args, options.id)
]

/**
 * Cuts text into word-sized chunks that concatenate back to it: each word
 * with the spaces before it, and trailing spaces as a chunk of their own.
 * Scripted text is the test's own, so a regular expression is safe here.
 */
const streamChunks = (answer: string): ReadonlyArray<string> => answer.match(/ *[^ ]+| +$/g) ?? []

/** Read-back of what the scripted model was asked. */
export interface Recorder {
  /** Every request received, in order. */
  readonly requests: Effect.Effect<ReadonlyArray<ChatRequest>>
  /** How many scripted turns are left. */
  readonly remaining: Effect.Effect<number>
}

/** The scripted model's read-back. */
export class ScriptedChatModel extends Context.Tag("easyai/ScriptedChatModel")<ScriptedChatModel, Recorder>() {}

const withFinish = (turn: Turn): Turn =>
  turn.some((step) => step._tag === "Finished")
    ? turn
    : [...turn, finish(turn.some((step) => step._tag === "ToolCallRequested") ? "tool_calls" : "stop")]

/** A Layer providing `ChatModel` (playing `turns` in order) and its `ScriptedChatModel` read-back. */
export const layer = (turns: ReadonlyArray<Turn>): Layer.Layer<ChatModel | ScriptedChatModel> =>
  Layer.effectContext(Effect.gen(function*() {
    const script = yield* Ref.make(turns.map(withFinish))
    const requests = yield* Ref.make<ReadonlyArray<ChatRequest>>([])
    const callIds = yield* Ref.make(0)

    const play = (step: Step): Stream.Stream<ModelEvent, ChatModelError> => {
      switch (step._tag) {
        case "Delay":
          return Stream.fromEffect(Effect.sleep(step.duration)).pipe(Stream.drain)
        case "Fail":
          return Stream.fail(step.error)
        case "ToolCallRequested":
          return step.call.id !== ""
            ? Stream.make(step)
            : Stream.fromEffect(Ref.updateAndGet(callIds, (n) => n + 1).pipe(
              Effect.map((n) => new ToolCallRequested({ call: new ToolCall({ ...step.call, id: `call_${n}` }) }))
            ))
        default:
          return Stream.make(step)
      }
    }

    const stream = (request: ChatRequest): Stream.Stream<ModelEvent, ChatModelError> =>
      Stream.unwrap(Effect.gen(function*() {
        const received = yield* Ref.updateAndGet(requests, (all) => [...all, request])
        const turn = yield* Ref.modify(script, ([next, ...rest]) => [next, rest])
        if (turn === undefined) {
          return Stream.fail(
            new ModelError({
              reason: "BadResponse",
              detail: `the scripted model has no turn left for request ${received.length}`
            })
          )
        }
        return Stream.fromIterable(turn).pipe(Stream.flatMap(play))
      }))

    return Context.make(ChatModel, {
      info: Effect.succeed({ name: "scripted", backend: "scripted" }),
      stream
    }).pipe(Context.add(ScriptedChatModel, {
      requests: Ref.get(requests),
      remaining: Effect.map(Ref.get(script), (left) => left.length)
    }))
  }))
