/**
 * The canonical toolset a session registers unless told not to.
 *
 * @module
 */
import { Effect } from "effect"
import type { Tool } from "../../domain/Tool.js"
import type { ToolRegistry } from "../../services/ToolRegistry.js"
import { toolLookup } from "./toolLookup.js"

/** The default tools, in registration order. */
export const defaultTools: Effect.Effect<ReadonlyArray<Tool>, never, ToolRegistry> = Effect.all([toolLookup])
