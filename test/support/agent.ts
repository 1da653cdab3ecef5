import { Chunk, Effect, Layer, Stream } from "effect"
import { type AgentEvent, AgentLive, type Approval, ApprovalLive, type Tool, ToolRegistryLive } from "easyai"
import { ScriptedChatModel } from "easyai/testing"

/** An Agent on a scripted model, with the registry and the script's recorder exposed to the test. */
export const scriptedAgent = (
  turns: ReadonlyArray<ScriptedChatModel.Turn>,
  options: {
    readonly tools?: ReadonlyArray<Tool.Tool>
    readonly agent?: AgentLive.Options
    readonly approval?: Layer.Layer<Approval>
  } = {}
) =>
  AgentLive.layer(options.agent).pipe(
    Layer.provideMerge(Layer.mergeAll(
      ScriptedChatModel.layer(turns),
      ToolRegistryLive.layer({ tools: options.tools ?? [] }),
      options.approval ?? ApprovalLive.autoApprove
    ))
  )

/** Runs a stream to the end and returns its events. */
export const collect = <A, E, R>(stream: Stream.Stream<A, E, R>) => Effect.map(Stream.runCollect(stream), Chunk.toArray)

/** The `_tag`s of events, in order. */
export const tags = (events: ReadonlyArray<AgentEvent>): ReadonlyArray<string> => events.map((event) => event._tag)

/** The last event, which must be `TurnComplete`. */
export const completion = (events: ReadonlyArray<AgentEvent>) => {
  const last = events.at(-1)
  if (last?._tag !== "TurnComplete") throw new Error(`expected TurnComplete last, got ${last?._tag}`)
  return last
}
