/**
 * What the tracing tests share: a session with one tool to call, and a way
 * to collect every span a piece of work ends.
 */
import { Effect, type Layer, Schema } from "effect"
import { type ChatModel, SessionStack, type SpanRecord, Tool, Tracing } from "easyai"

/** A tool a forced call can always make: the grammar leaves only its three colours. */
export const pick = Tool.make({
  name: "pick",
  description: "Pick a color.",
  parameters: Schema.Struct({ color: Schema.Literal("red", "green", "blue") }),
  handler: ({ color }) => Effect.succeed(color)
})

/** A session on `model` with `pick` as its only tool and a short system prompt (small models' contexts are small). */
export const pickSession = (model: Layer.Layer<ChatModel, unknown>) =>
  SessionStack.layer({
    model,
    session: { system: "You are a storyteller.", withDefaultTools: false, tools: [pick], preamble: { injectDateTime: false } }
  })

/** Runs `effect` with every finished span collected, and returns both. */
export const traced = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.suspend(() => {
    const spans: Array<SpanRecord.SpanRecord> = []
    return effect.pipe(Effect.provide(Tracing.recordingLayer([(span) => spans.push(span)])), Effect.map((value) => ({ value, spans })))
  })
