/**
 * The whole graph under a `Session`, wired once: the session on an agent
 * loop, a tool registry shared by both, a system-prompt composer, an
 * approval gate and the model you choose. Swapping the model Layer is
 * all it takes to change backends.
 *
 * ```ts
 * const live = SessionStack.layer({ model: ScriptedChatModel.layer(turns) })
 * ```
 *
 * @module
 */
import { Layer } from "effect"
import type { FileError, SandboxViolation, ToolRegistrationError } from "../../domain/errors.js"
import type { PreambleOptions } from "../../domain/SystemPrompt.js"
import type { Agent } from "../../services/Agent.js"
import type { Approval } from "../../services/Approval.js"
import type { ChatModel } from "../../services/ChatModel.js"
import type { Preamble } from "../../services/Preamble.js"
import type { Session } from "../../services/Session.js"
import type { ToolMode, ToolRegistry } from "../../services/ToolRegistry.js"
import * as AgentLive from "../agent/AgentLive.js"
import * as ApprovalLive from "../approval/ApprovalLive.js"
import * as PreambleLive from "../preamble/PreambleLive.js"
import * as ToolRegistryLive from "../registry/ToolRegistryLive.js"
import * as SandboxLive from "../sandbox/SandboxLive.js"
import * as HostToolsLive from "../tools/HostToolsLive.js"
import * as SessionLive from "./SessionLive.js"

/** What the stack is built from. */
export interface Options<E> {
  /** The model: a local engine, a remote client, or a scripted double. */
  readonly model: Layer.Layer<ChatModel, E>
  /** The approval gate; every call is approved by default. */
  readonly approval?: Layer.Layer<Approval>
  /** The tool-family surfaces the model sees; `split` by default. */
  readonly toolMode?: ToolMode
  /** The preamble options the composer starts from. */
  readonly preamble?: Partial<PreambleOptions>
  /** The session's configuration. */
  readonly session?: SessionLive.Config
  /** The loop's options. */
  readonly agent?: AgentLive.Options
  /**
   * A sandbox on the host and the tools that act in it (fs and evaluate by
   * default; bash and external tools when asked). Without it, no tool
   * touches the host.
   */
  readonly host?: { readonly root: string } & HostToolsLive.Options
}

/** Everything the stack provides. */
export type Services = Session | Agent | ToolRegistry | Preamble

/** Everything building the stack can fail with, besides the model's own error. */
export type BuildError = ToolRegistrationError | FileError | SandboxViolation

/** Builds the stack. Call it once per application: each call is a new model. */
export const layer = <E>(options: Options<E>): Layer.Layer<Services, E | BuildError> => {
  const registry = ToolRegistryLive.layer({ mode: options.toolMode ?? "split" })
  const agent = AgentLive.layer(options.agent).pipe(
    Layer.provide(Layer.mergeAll(registry, options.approval ?? ApprovalLive.autoApprove, options.model))
  )
  const preamble = PreambleLive.layer(options.preamble)
  // Host tools are registered before the session composes its first system prompt, so it lists them.
  const hostTools = options.host === undefined
    ? Layer.empty
    : HostToolsLive.layer(options.host).pipe(
      Layer.provide(Layer.merge(registry, SandboxLive.layer({ root: options.host.root })))
    )
  return SessionLive.layer(options.session).pipe(Layer.provideMerge(Layer.mergeAll(agent, registry, preamble, hostTools)))
}
