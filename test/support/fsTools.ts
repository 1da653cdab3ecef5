/**
 * The real fs tools over the real sandbox, called as a model calls them:
 * through the `ToolRegistry`, arguments as JSON.
 */
import { Effect, Layer } from "effect"
import { ToolCall, type ToolMode, ToolRegistry, ToolRegistryLive } from "easyai"
import * as SandboxLive from "../../src/layers/sandbox/SandboxLive.js"
import { fsTools } from "../../src/layers/tools/fs/fsTools.js"

/** A registry holding every fs tool over a sandbox with `options` (its root at least). */
export const fsToolsLayer = (options: SandboxLive.Options, mode: ToolMode = "both") =>
  Layer.unwrapEffect(Effect.map(fsTools, (all) => ToolRegistryLive.layer({ mode, tools: all }))).pipe(
    Layer.provide(SandboxLive.layer(options))
  )

/** Calls the tool `name` with `args` (sent as JSON), as the model would. */
export const callTool = (name: string, args: unknown) =>
  Effect.flatMap(ToolRegistry, (registry) =>
    registry.call(new ToolCall({ id: "call_1", name, arguments: JSON.stringify(args) })))
