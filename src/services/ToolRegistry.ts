/**
 * The `ToolRegistry` service: the tools an agent may call, what the model is
 * shown of them, and the dispatch of a call to a result.
 *
 * @module
 */
import { Context, type Effect } from "effect"
import type { ToolRegistrationError } from "../domain/errors.js"
import type { Tool } from "../domain/Tool.js"
import type { ToolCall, ToolResult, ToolSpec } from "../domain/ToolCall.js"

/**
 * Which surfaces of a tool family the model sees: one focused tool per verb
 * (`split`, the default: small models dispatch it more reliably), one tool
 * with an `action` field (`unified`), or `both` side by side.
 */
export type ToolMode = "split" | "unified" | "both"

/** The registry's operations. */
export interface Service {
  /** The tool mode this registry was built with. */
  readonly mode: ToolMode
  /** Registers a tool; allowed at any time, also mid-conversation. */
  readonly add: (tool: Tool) => Effect.Effect<void, ToolRegistrationError>
  /** Unregisters a tool by name; tells whether one was registered. */
  readonly remove: (name: string) => Effect.Effect<boolean>
  /** The tools the model sees in this mode, in registration order. */
  readonly tools: Effect.Effect<ReadonlyArray<Tool>>
  /** The specs of {@link tools}, for prompts and the wire. */
  readonly specs: Effect.Effect<ReadonlyArray<ToolSpec>>
  /** Whether a visible tool answers to `name` (aliases included). */
  readonly has: (name: string) => Effect.Effect<boolean>
  /**
   * Runs a call. Never fails: an unknown tool, bad arguments and a handler
   * defect all come back as error results the model can act on.
   */
  readonly call: (call: ToolCall) => Effect.Effect<ToolResult>
}

/** The tools an agent may call. */
export class ToolRegistry extends Context.Tag("easyai/ToolRegistry")<ToolRegistry, Service>() {}

/**
 * Legacy names that still dispatch to their current tool, so resumed
 * conversations and old callers keep working: `python3` is now `evaluate`.
 */
export const defaultAliases: Readonly<Record<string, string>> = { python3: "evaluate" }
