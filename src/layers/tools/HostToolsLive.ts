/**
 * Registers the tools that act on the host — fs, bash, evaluate and the
 * operator's external tools — into the registry, on demand.
 *
 * | option | registers |
 * |---|---|
 * | `fs` (default true) | the fs tools, both surfaces (the registry's tool mode picks one) |
 * | `bash` (default false) | `bash`, and the fs tools with it (a shell without file tools leaves the model writing files with `cat >`) |
 * | `evaluate` (default true) | `evaluate` (Python, read-only) |
 * | `externalTools` | every `EASYAI-<name>.tools` manifest in that directory |
 *
 * @module
 */
import { Effect, Layer } from "effect"
import type { ToolRegistrationError } from "../../domain/errors.js"
import { Sandbox } from "../../services/Sandbox.js"
import { ToolRegistry } from "../../services/ToolRegistry.js"
import { loadExternalTools } from "./external/load.js"
import { reservedToolNames } from "./reserved.js"
import { hostTools, type HostToolsOptions, runsProcesses } from "./toolset.js"

/** Which host tools to register (which ones, and their order, `toolset.ts` decides). */
export interface Options extends HostToolsOptions {
  /** A directory of `EASYAI-<name>.tools` manifests. */
  readonly externalTools?: string
}

const register = (options: Options) =>
  Effect.gen(function*() {
    const registry = yield* ToolRegistry
    for (const tool of yield* hostTools(options)) yield* registry.add(tool)
    if (runsProcesses(options) || options.externalTools !== undefined) {
      // Which guard holds the tool processes, said once at start.
      yield* Effect.logInfo(`tools: isolation ${(yield* Sandbox).isolation.summary}`)
    }
    if (options.externalTools === undefined) return
    const loaded = yield* loadExternalTools(options.externalTools, reservedToolNames)
    // One broken manifest must not take the others (or the agent) down: report it and go on.
    for (const error of loaded.errors) yield* Effect.logError(`external tools: ${error}`)
    for (const warning of loaded.warnings) yield* Effect.logWarning(`external tools: ${warning}`)
    for (const tool of loaded.tools) yield* registry.add(tool)
    yield* Effect.logInfo(`external tools: ${loaded.tools.length} loaded from ${options.externalTools}`)
  })

/** Registers the host tools chosen by `options` into the registry in context. */
export const layer = (options: Options): Layer.Layer<never, ToolRegistrationError, Sandbox | ToolRegistry> =>
  Layer.effectDiscard(register(options))
