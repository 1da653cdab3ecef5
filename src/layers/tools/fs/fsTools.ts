/**
 * The filesystem tools, both surfaces: the split tools (`fs_read`,
 * `fs_write`, `fs_edit`, `fs_list`, `fs_glob`, `fs_grep`, `fs_check_path`,
 * `fs_cwd`, `fs_sandbox`) and the unified `fs` tool with its `ops` batch.
 * Register them all; the registry's tool mode decides which surface the
 * model sees (`split` by default, `unified`, or `both`).
 *
 * ```ts
 * const tools = yield* fsTools // needs a Sandbox
 * const registry = yield* ToolRegistryLive.make({ mode: "unified", tools })
 * ```
 *
 * @module
 */
import { Effect } from "effect"
import type { Tool } from "../../../domain/Tool.js"
import { Sandbox } from "../../../services/Sandbox.js"
import { splitTools } from "./split.js"
import { unifiedTool } from "./unified.js"

/** Every fs tool on the sandbox: the split tools, then the unified `fs`. */
export const fsTools: Effect.Effect<ReadonlyArray<Tool>, never, Sandbox> = Effect.map(
  Sandbox,
  (sandbox) => [...splitTools(sandbox), unifiedTool(sandbox)]
)
