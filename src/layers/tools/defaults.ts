/**
 * The default tools a session registers itself, after every other tool:
 * `tool_lookup`, last, so its place in the catalogue says it indexes all the
 * others. The rest of the default toolset (datetime, plan, web) needs
 * services a bare session does not have, and is registered by
 * `SessionStack` before the session is built.
 *
 * @module
 */
import { Effect } from "effect"
import type { Tool } from "../../domain/Tool.js"
import type { ToolRegistry } from "../../services/ToolRegistry.js"
import { toolLookup } from "./toolLookup.js"

/** The tools the session registers last, in order. */
export const defaultTools: Effect.Effect<ReadonlyArray<Tool>, never, ToolRegistry> = Effect.all([toolLookup])
