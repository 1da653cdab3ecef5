/**
 * The `Approval` service: the gate a tool call passes before it runs.
 *
 * @module
 */
import { Context, Data, type Effect } from "effect"
import type { ToolCall } from "../domain/ToolCall.js"

/** Whether a call may run; a denial's reason is what the model reads. */
export type Decision = Data.TaggedEnum<{
  Approved: {}
  Denied: { readonly reason: string }
}>

/** Constructors and matchers for {@link Decision}. */
export const Decision = Data.taggedEnum<Decision>()

/** The gate's operation. */
export interface Service {
  readonly check: (call: ToolCall) => Effect.Effect<Decision>
}

/** Authorizes tool calls before they run. */
export class Approval extends Context.Tag("easyai/Approval")<Approval, Service>() {}
