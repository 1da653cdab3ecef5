/**
 * Which built-in tools a stack has, and in what order: the one place that
 * decides both. Registration order is the catalogue's order, and the system
 * prompt lists the tools in it, so the order is fixed for every start:
 *
 * 1. the defaults: `datetime`, `plan`, `web_search` and `web_fetch`, then
 *    the `system_*` tools when asked;
 * 2. the host tools: the fs tools (both surfaces; the registry's tool mode
 *    picks one), `bash`, `evaluate`, then the external manifests' tools;
 * 3. memory: the seven `knowledge_*` tools;
 * 4. the session's own tools;
 * 5. the MCP servers' tools (after every local one, so a local tool keeps
 *    its name);
 * 6. skills (`read_skill` and the skills' own tools);
 * 7. `tool_lookup`, last, so its place says it indexes all the others.
 *
 * `withDefaultTools: false` leaves out groups 1 and 7. The layers that build
 * a stack (`SessionStack`, `SessionLive`, `HostToolsLive`) take each group
 * from here and register it at its place.
 *
 * @module
 */
import { Effect, type Scope } from "effect"
import type { Tool } from "../../domain/Tool.js"
import type { Plan } from "../../services/Plan.js"
import type { Sandbox } from "../../services/Sandbox.js"
import type { ToolRegistry } from "../../services/ToolRegistry.js"
import { bash } from "./bash.js"
import { datetime } from "./datetime.js"
import { evaluate } from "./evaluate.js"
import { fsTools } from "./fs/fsTools.js"
import { knowledgeTools } from "./knowledge.js"
import { planTool } from "./plan.js"
import { systemTools } from "./system/systemTools.js"
import { toolLookup } from "./toolLookup.js"
import type { InvalidNetwork } from "./web/errors.js"
import type { WebOptions } from "./web/options.js"
import { webTools } from "./web/webTools.js"

/** Which of the default tools (group 1) a stack has. */
export interface DefaultToolsOptions {
  /** The default tools at all (`datetime`, `plan`, web, and `tool_lookup` last). Default true. */
  readonly enabled?: boolean
  /** The plan tool; on with the default tools unless `false`. */
  readonly plan?: boolean
  /** The web tools' options, or `false` to leave them out; on with the default tools. */
  readonly web?: WebOptions | false
  /** The `system_*` observability tools; they read the host itself, so off unless `true`. */
  readonly system?: boolean
}

/** Which host tools (group 2) a stack has. */
export interface HostToolsOptions {
  /** The fs tools. Default true. */
  readonly fs?: boolean
  /** `bash`, and the fs tools with it (a shell without file tools leaves the model writing files with `cat >`). Default false. */
  readonly bash?: boolean
  /** `evaluate` (Python, read-only). Default true. */
  readonly evaluate?: boolean
}

/** Group 1: `datetime`, `plan`, the web tools, then `system_*` when asked; none without the default tools. */
export const defaultTools = (
  options: DefaultToolsOptions
): Effect.Effect<ReadonlyArray<Tool>, InvalidNetwork, Plan | Scope.Scope> =>
  Effect.gen(function*() {
    if (options.enabled === false) return []
    return [
      datetime,
      ...(options.plan === false ? [] : [yield* planTool]),
      ...(options.web === false ? [] : yield* webTools(options.web)),
      ...(options.system === true ? systemTools : [])
    ]
  })

/** Whether a stack with these host options runs tool processes (`bash`, `evaluate`). */
export const runsProcesses = (options: HostToolsOptions): boolean => options.bash === true || (options.evaluate ?? true)

/** Group 2, before the external tools: the fs tools, `bash`, `evaluate`, as chosen. */
export const hostTools = (options: HostToolsOptions): Effect.Effect<ReadonlyArray<Tool>, never, Sandbox | ToolRegistry> =>
  Effect.gen(function*() {
    return [
      ...((options.fs ?? true) || options.bash === true ? yield* fsTools : []),
      ...(options.bash === true ? [yield* bash] : []),
      ...((options.evaluate ?? true) ? [yield* evaluate] : [])
    ]
  })

/** Group 3: the `knowledge_*` tools over the memory store. */
export const memoryTools = knowledgeTools

/** Group 7: `tool_lookup` over the registry it indexes; none without the default tools. */
export const closingTools = (enabled: boolean): Effect.Effect<ReadonlyArray<Tool>, never, ToolRegistry> =>
  enabled ? Effect.all([toolLookup]) : Effect.succeed([])
