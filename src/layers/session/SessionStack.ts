/**
 * The whole graph under a `Session`, wired once: the session on an agent
 * loop, a tool registry shared by both, a system-prompt composer, an
 * approval gate, the built-in tools and the model you choose. Swapping the
 * model Layer is all it takes to change backends.
 *
 * ```ts
 * const live = SessionStack.layer({ model: ScriptedChatModel.layer(turns) })
 * ```
 *
 * Tools are registered in the fixed order `toolset.ts` decides, so the
 * catalogue (and the system prompt that lists it) is the same on every
 * start: the defaults, the host tools, memory, the session's own tools, the
 * MCP servers' tools, skills, and `tool_lookup` last.
 *
 * @module
 */
import { Effect, Layer } from "effect"
import type { FileError, SandboxSetupError, SandboxViolation, ToolRegistrationError } from "../../domain/errors.js"
import type { MemoryError } from "../../domain/memory.js"
import type { PreambleOptions } from "../../domain/SystemPrompt.js"
import type { Tool } from "../../domain/Tool.js"
import type { Agent } from "../../services/Agent.js"
import type { Approval } from "../../services/Approval.js"
import type { ChatModel } from "../../services/ChatModel.js"
import type { Plan } from "../../services/Plan.js"
import type { Preamble } from "../../services/Preamble.js"
import type { Sandbox } from "../../services/Sandbox.js"
import type { Session } from "../../services/Session.js"
import { type ToolMode, ToolRegistry } from "../../services/ToolRegistry.js"
import * as AgentLive from "../agent/AgentLive.js"
import * as ApprovalLive from "../approval/ApprovalLive.js"
import type { McpClient } from "../../services/McpClient.js"
import * as McpClientLive from "../mcp/McpClientLive.js"
import * as MemoryStoreLive from "../memory/MemoryStoreLive.js"
import * as PlanLive from "../plan/PlanLive.js"
import * as PreambleLive from "../preamble/PreambleLive.js"
import * as ToolRegistryLive from "../registry/ToolRegistryLive.js"
import * as SandboxLive from "../sandbox/SandboxLive.js"
import * as HostToolsLive from "../tools/HostToolsLive.js"
import { reservedToolNames } from "../tools/reserved.js"
import { defaultTools, memoryTools } from "../tools/toolset.js"
import type { InvalidNetwork } from "../tools/web/errors.js"
import type { WebOptions } from "../tools/web/options.js"
import { type AgentsFileError, loadAgentsFile } from "../workspace/agentsFile.js"
import type { SkillsMode } from "../workspace/skillFile.js"
import { loadSkills } from "../workspace/skills.js"
import type { SkillsOptions } from "../workspace/skillTools.js"
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
  /** The session's configuration (`withDefaultTools: false` leaves out datetime, plan, web and tool_lookup). */
  readonly session?: SessionLive.Config
  /** The loop's options. */
  readonly agent?: AgentLive.Options
  /**
   * A sandbox on the host and the tools that act in it (fs and evaluate by
   * default; bash and external tools when asked). Without it, no tool
   * touches the host. `isolate` and `toolEnv` are the sandbox's (see
   * `SandboxLive.Options`): how tool processes are confined, and which
   * variables they get besides the default few.
   */
  readonly host?: Pick<SandboxLive.Options, "root" | "isolate" | "toolEnv"> & HostToolsLive.Options
  /** A memory directory: the seven knowledge tools, and the memory vocabulary and loop in the preamble. */
  readonly memory?: string
  /** The plan tool; on with the default tools unless `false`. */
  readonly plan?: boolean
  /** The web tools' options, or `false` to leave them out; on with the default tools. */
  readonly web?: WebOptions | false
  /**
   * The `system_*` observability tools (CPU load, memory, disk usage, top
   * processes), after the web tools. They read the host itself, so they are
   * off unless `true`; they come with the default tools only.
   */
  readonly system?: boolean
  /** A workspace directory whose `AGENTS.md` joins the base prompt. */
  readonly workspace?: string
  /** MCP servers whose tools join the registry (after the host tools and memory, before skills). */
  readonly mcp?: McpClientLive.Options
  /** Skill directories (later ones override earlier ones by name) and how skills reach the model. */
  readonly skills?: {
    readonly directories: ReadonlyArray<string>
    readonly mode?: SkillsMode
    readonly options?: SkillsOptions
  }
}

/**
 * Everything the stack provides; the `Sandbox` tells programs how tool
 * processes are confined, and the `Approval` gate is the loop's own, for a
 * program that confirms other actions the same way.
 */
export type Services = Session | Agent | ToolRegistry | Preamble | Plan | McpClient | Sandbox | Approval

/** Everything building the stack can fail with, besides the model's own error. */
export type BuildError =
  | ToolRegistrationError
  | FileError
  | SandboxViolation
  | SandboxSetupError
  | MemoryError
  | AgentsFileError
  | InvalidNetwork

/** A Layer that registers `tools` into the registry in context; what they acquire lives as long as the Layer. */
const registering = <E, R>(tools: Effect.Effect<ReadonlyArray<Tool>, E, R>) =>
  Layer.scopedDiscard(Effect.gen(function*() {
    const registry = yield* ToolRegistry
    for (const tool of yield* tools) yield* registry.add(tool)
  }))

/** `second` built after `first`: registration order is the catalogue's order. */
const after = <E1, R1, E2, R2>(first: Layer.Layer<never, E1, R1>, second: Layer.Layer<never, E2, R2>) =>
  Layer.provide(second, first)

/** Builds the stack. Call it once per application: each call is a new model. */
export const layer = <E>(options: Options<E>): Layer.Layer<Services, E | BuildError> => {
  const registry = ToolRegistryLive.layer({ mode: options.toolMode ?? "split" })
  const plan = PlanLive.layer
  const sandbox = SandboxLive.layer({
    root: options.host?.root ?? options.workspace ?? ".",
    // Without host tools no tool process runs: nothing to probe.
    isolate: options.host === undefined ? "off" : options.host.isolate ?? "auto",
    ...(options.host?.toolEnv === undefined ? {} : { toolEnv: options.host.toolEnv })
  })
  const memory = options.memory === undefined ? undefined : MemoryStoreLive.fileSystem(options.memory)
  const defaults = options.session?.withDefaultTools ?? true

  const builtins = registering(defaultTools({
    enabled: defaults,
    ...(options.plan === undefined ? {} : { plan: options.plan }),
    ...(options.web === undefined ? {} : { web: options.web }),
    ...(options.system === undefined ? {} : { system: options.system })
  }))
  const host = options.host === undefined ? Layer.empty : HostToolsLive.layer(options.host)
  const knowledge = memory === undefined ? Layer.empty : registering(memoryTools).pipe(Layer.provide(memory))
  const registrations = after(after(builtins, host), knowledge).pipe(
    Layer.provide(Layer.mergeAll(registry, plan, sandbox))
  )
  // The session's own tools, then MCP servers' tools: after every local one, so a local tool keeps its name.
  const sessionTools = registering(Effect.succeed(options.session?.tools ?? []))
  const locals = after(registrations, sessionTools).pipe(Layer.provide(registry))
  const mcp = McpClientLive.layer(options.mcp).pipe(Layer.provide(Layer.merge(locals, registry)))

  // Workspace context and skills are read when the session is built, after every other tool is registered.
  const session = Layer.unwrapEffect(Effect.gen(function*() {
    const agents = options.workspace === undefined ? undefined : yield* loadAgentsFile(options.workspace)
    const context: Array<string> = agents === undefined ? [] : [agents]
    if (options.skills !== undefined) {
      const registry = yield* ToolRegistry
      const reserved = [...reservedToolNames, ...(yield* registry.specs).map((spec) => spec.name)]
      const loaded = yield* loadSkills(options.skills.directories, options.skills.mode ?? "readOnDemand", {
        reservedNames: reserved,
        ...options.skills.options
      })
      for (const error of loaded.errors) yield* Effect.logError(`skills: ${error}`)
      for (const warning of loaded.warnings) yield* Effect.logWarning(`skills: ${warning}`)
      for (const tool of loaded.tools) yield* registry.add(tool)
      if (loaded.systemText !== undefined) context.push(loaded.systemText)
    }
    // The session's own tools are already registered, ahead of the MCP servers' tools.
    const { tools: _registered, ...config } = options.session ?? {}
    return SessionLive.layer({ ...config, context: [...context, ...(config.context ?? [])] })
  })).pipe(Layer.provide(Layer.merge(registry, sandbox)))

  const approval = options.approval ?? ApprovalLive.autoApprove
  const agent = AgentLive.layer(options.agent).pipe(Layer.provide(Layer.mergeAll(registry, approval, options.model)))
  const preamble = memory === undefined
    ? PreambleLive.layer(options.preamble)
    : PreambleLive.layerWithMemory(options.preamble).pipe(Layer.provide(memory))
  return session.pipe(Layer.provideMerge(Layer.mergeAll(agent, registry, preamble, plan, mcp, sandbox, approval)))
}

