/**
 * The Tier-1 façade: an agent in three lines, from plain async TypeScript or
 * from Effect, built on exactly the `Session` stack underneath.
 *
 * ```ts
 * const agent = easyai.withModel(model)
 * console.log(await agent.ask("What is 2+2?"))
 * ```
 *
 * Construction is cheap: nothing is built until the first question. Fluent
 * setters configure the agent; those that shape the conversation (system
 * prompt, tools) keep working after it started, and take effect at the next
 * question.
 *
 * @module
 */
import { type ConfigError, Effect, Exit, type Layer, ManagedRuntime, Stream } from "effect"
import type { AgentEvent } from "./domain/AgentEvent.js"
import { rejectionOf } from "./EasyAiError.js"
import type { AskOptions, ConnectOptions, StructuredAskOptions } from "./easyaiOptions.js"
import type { ClientConfig } from "./domain/ClientConfig.js"
import type { EngineConfig } from "./domain/EngineConfig.js"
import { ConfigurationError, type ModelLoadError, type ToolRegistrationError } from "./domain/errors.js"
import type { ChatMessage } from "./domain/Message.js"
import type { PresetName, SamplingOverrides } from "./domain/Sampling.js"
import { decodeOutput, outputFormat } from "./domain/StructuredOutput.js"
import type { PreambleOptions } from "./domain/SystemPrompt.js"
import type { Tool } from "./domain/Tool.js"
import type * as AgentLive from "./layers/agent/AgentLive.js"
import * as LocalChatModel from "./layers/model/LocalChatModel.js"
import * as NoChatModel from "./layers/model/NoChatModel.js"
import * as RemoteChatModel from "./layers/model/RemoteChatModel.js"
import * as RemoteSession from "./layers/remoteSession/RemoteSession.js"
import type * as SessionLive from "./layers/session/SessionLive.js"
import type { IsolateMode } from "./layers/sandbox/isolation.js"
import * as SessionStack from "./layers/session/SessionStack.js"
import type { AgentError } from "./services/Agent.js"
import type { Approval } from "./services/Approval.js"
import type { ChatModel } from "./services/ChatModel.js"
import { type ChatOptions, Session, type Service as SessionService, type SystemAppend } from "./services/Session.js"
import type { ToolMode } from "./services/ToolRegistry.js"

/** A session served elsewhere, opened with the approval gate the agent was given. */
type Connection<E> = (approval: Layer.Layer<Approval> | undefined) => Layer.Layer<Session, E>

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

/** An agent behind a fluent, Promise-friendly API. */
export class EasyAgent<E = never> {
  private readonly session: Mutable<SessionLive.Config> = {}
  private readonly agent: Mutable<AgentLive.Options> = {}
  private preambleOptions: Partial<PreambleOptions> = {}
  private mode: ToolMode = "split"
  private approvalLayer: Layer.Layer<Approval> | undefined
  private host: Mutable<NonNullable<SessionStack.Options<E>["host"]>> | undefined
  /** How the host tools' processes run; applies once a sandbox is given. */
  private confinement: Mutable<Pick<NonNullable<SessionStack.Options<E>["host"]>, "isolate" | "toolEnv">> = {}
  private extras: Mutable<Pick<SessionStack.Options<E>, "memory" | "plan" | "workspace" | "skills">> = {}
  private presetName: PresetName | undefined
  private samplingOverrides: SamplingOverrides = {}
  private runtime: ManagedRuntime.ManagedRuntime<Session, E | SessionStack.BuildError> | undefined
  /** Changes made after the start, applied before the next question. */
  private pending: Array<Effect.Effect<void, ToolRegistrationError, Session>> = []

  /**
   * An agent on `model` with a local session; with `connection`, the
   * session (its loop and tools) is the one `connection` opens instead, and
   * the settings of a local toolbelt are refused.
   */
  constructor(private readonly model: Layer.Layer<ChatModel, E>, private readonly connection?: Connection<E>) {}

  private beforeStart(setter: string, localOnly = true): void {
    if (localOnly && this.connection !== undefined) {
      throw new ConfigurationError({ message: `${setter}() configures a local agent; a connected agent has the server's tools and settings` })
    }
    if (this.runtime !== undefined) {
      throw new ConfigurationError({ message: `${setter}() must be called before the agent's first question` })
    }
  }

  private change(before: () => void, after: (session: SessionService) => Effect.Effect<void, ToolRegistrationError>) {
    // A connected session is configured through its own operations, before the first question too.
    if (this.runtime === undefined && this.connection === undefined) before()
    else this.pending.push(Effect.flatMap(Session, after))
    return this
  }

  /** Replaces the built-in base prompt verbatim (after the start: and clears the history). */
  system(text: string): this {
    return this.change(() => (this.session.system = text), (session) => session.setSystem(text))
  }

  /** Appends text (or a function recomputed on every refresh) after the base prompt. */
  systemAppend(append: SystemAppend): this {
    return this.change(
      () => (this.session.systemAppend = [...(this.session.systemAppend ?? []), append]),
      (session) => Effect.zipRight(session.appendSystem(append), session.refreshSystem)
    )
  }

  /** Adds a tool (after the start: mid-conversation, history kept). */
  addTool(tool: Tool): this {
    return this.change(
      () => (this.session.tools = [...(this.session.tools ?? []), tool]),
      (session) => session.addTool(tool)
    )
  }

  /** Drops the built-in base prompt. */
  noBuiltinSystem(): this {
    this.beforeStart("noBuiltinSystem")
    this.session.noBuiltinSystem = true
    return this
  }

  /** Registers (default) or leaves out the default toolset. */
  withDefaultTools(enabled = true): this {
    this.beforeStart("withDefaultTools")
    this.session.withDefaultTools = enabled
    return this
  }

  /** Overrides the dynamic preamble's options. */
  preamble(options: Partial<PreambleOptions>): this {
    this.beforeStart("preamble")
    this.preambleOptions = { ...this.preambleOptions, ...options }
    return this
  }

  /** Which tool-family surfaces the model sees. */
  toolMode(mode: ToolMode): this {
    this.beforeStart("toolMode")
    this.mode = mode
    return this
  }

  /** The approval gate (every call is approved by default). */
  approval(layer: Layer.Layer<Approval>): this {
    this.beforeStart("approval", false)
    this.approvalLayer = layer
    return this
  }

  /**
   * Gives the agent a sandbox: the directory it sees as `/`, with the fs
   * tools and the read-only Python `evaluate`. Nothing touches the host
   * without it.
   */
  sandbox(root: string): this {
    this.beforeStart("sandbox")
    this.host = { ...this.host, root }
    return this
  }

  /** Adds the `bash` tool (and the fs tools) in the sandbox: NOT a file-system boundary (see {@link isolate}). */
  allowBash(): this {
    this.beforeStart("allowBash")
    this.host = { root: this.host?.root ?? ".", ...this.host, bash: true }
    return this
  }

  /** Leaves out the Python `evaluate` tool. */
  noPython(): this {
    this.beforeStart("noPython")
    this.host = { root: this.host?.root ?? ".", ...this.host, evaluate: false }
    return this
  }

  /**
   * How tool processes (bash, evaluate, external tools) are confined:
   * `auto` (the default) a bubblewrap PID namespace per call, evaluate
   * read-only with no network, where that works; `on` refuses to start
   * without it; `off` tracks and kills each call's processes instead.
   */
  isolate(mode: IsolateMode): this {
    this.beforeStart("isolate")
    this.confinement.isolate = mode
    return this
  }

  /**
   * Variables passed to `bash` besides PATH, HOME, the locale and a
   * few more. easyai's own `EASYAI_*` are refused when the agent starts.
   */
  toolEnv(...names: ReadonlyArray<string>): this {
    this.beforeStart("toolEnv")
    this.confinement.toolEnv = names
    return this
  }

  /** Loads the operator's `EASYAI-<name>.tools` manifests from `directory`. */
  externalTools(directory: string): this {
    this.beforeStart("externalTools")
    this.host = { root: this.host?.root ?? ".", ...this.host, externalTools: directory }
    return this
  }

  /** Gives the agent a long-term memory in `directory`: the knowledge tools, and its vocabulary in the prompt. */
  memory(directory: string): this {
    this.beforeStart("memory")
    this.extras.memory = directory
    return this
  }

  /** Leaves out the plan tool. */
  noPlan(): this {
    this.beforeStart("noPlan")
    this.extras.plan = false
    return this
  }

  /** Reads the workspace's `AGENTS.md` from `directory` into the system prompt. */
  workspace(directory: string): this {
    this.beforeStart("workspace")
    this.extras.workspace = directory
    return this
  }

  /** Loads skills from `directories`: listed with a `read_skill` tool (default), or in full in the prompt. */
  skills(directories: ReadonlyArray<string>, mode: "full" | "readOnDemand" = "readOnDemand"): this {
    this.beforeStart("skills")
    this.extras.skills = { directories, mode }
    return this
  }

  /** The tool-hop budget per question. */
  maxToolHops(hops: number): this {
    this.beforeStart("maxToolHops")
    this.agent.maxToolHops = hops
    return this
  }

  /** The sampling preset for the following questions. */
  preset(name: PresetName): this {
    this.presetName = name
    return this
  }

  /** Shaper overrides (temperature, topP, topK, minP) for the following questions. */
  sampling(overrides: SamplingOverrides): this {
    this.samplingOverrides = { ...this.samplingOverrides, ...overrides }
    return this
  }

  private started(): ManagedRuntime.ManagedRuntime<Session, E | SessionStack.BuildError> {
    if (this.runtime === undefined && this.connection !== undefined) {
      this.runtime = ManagedRuntime.make(this.connection(this.approvalLayer))
    }
    if (this.runtime === undefined) {
      this.runtime = ManagedRuntime.make(SessionStack.layer({
        model: this.model,
        toolMode: this.mode,
        preamble: this.preambleOptions,
        session: this.session,
        agent: this.agent,
        ...(this.approvalLayer === undefined ? {} : { approval: this.approvalLayer }),
        ...(this.host === undefined ? {} : { host: { ...this.host, ...this.confinement } }),
        ...this.extras
      }))
    }
    return this.runtime
  }

  private chatOptions(options: ChatOptions): ChatOptions {
    return {
      ...(this.presetName === undefined ? {} : { preset: this.presetName }),
      ...options,
      sampling: { ...this.samplingOverrides, ...options.sampling }
    }
  }

  /** The session, after applying pending changes. */
  private readonly ready: Effect.Effect<SessionService, ToolRegistrationError, Session> = Effect.suspend(() => {
    const changes = this.pending
    this.pending = []
    return Effect.zipRight(Effect.all(changes, { discard: true }), Session)
  })

  /** The answer to `text`, as an Effect (the stack is built on first use). */
  askEffect(text: string, options: ChatOptions = {}): Effect.Effect<string, AgentError | SessionStack.BuildError | E> {
    const question = Effect.flatMap(this.ready, (session) => session.chat(text, this.chatOptions(options)))
    return Effect.map(Effect.provide(question, this.started()), (turn) => turn.text)
  }

  /** The events of answering `text`, as a Stream. */
  streamEffect(text: string, options: ChatOptions = {}): Stream.Stream<AgentEvent, AgentError | SessionStack.BuildError | E> {
    const events = Stream.unwrap(Effect.map(this.ready, (session) => session.stream(text, this.chatOptions(options))))
    return Stream.unwrap(Effect.map(this.started(), (runtime) => Stream.provideContext(events, runtime.context)))
  }

  /**
   * The answer to `text`; with `output`, the answer decoded into that
   * schema's type (an `OutputDecodeError` when it is not of that shape).
   * Rejects with the typed error (e.g. a `ModelError`), or an `EasyAiError`
   * holding every failure when several happened at once.
   */
  async ask<A, I>(text: string, options: StructuredAskOptions<A, I>): Promise<A>
  async ask(text: string, options?: AskOptions): Promise<string>
  async ask<A, I>(text: string, options: AskOptions | StructuredAskOptions<A, I> = {}): Promise<string | A> {
    if (!("output" in options)) {
      const { signal, ...chat } = options
      return this.run(this.askEffect(text, chat), signal)
    }
    const { output, signal, ...chat } = options
    const answer = this.askEffect(text, { ...chat, responseFormat: outputFormat(output) })
    return this.run(Effect.flatMap(answer, (json) => decodeOutput(output, json)), signal)
  }

  /** The events of answering `text`, as they happen. Breaking out of the loop cancels the generation. */
  stream(text: string, options: AskOptions = {}): AsyncIterable<AgentEvent> {
    const { signal, ...chat } = options
    const events = this.streamEffect(text, chat)
    const stopped = signal === undefined ? events : Stream.interruptWhen(events, abortOf(signal))
    return Stream.toAsyncIterable(stopped)
  }

  /** The conversation so far, without the system prompt. */
  history(): Promise<ReadonlyArray<ChatMessage>> {
    return this.run(Effect.flatMap(this.ready, (session) => session.history))
  }

  /** The system prompt the next question will use. */
  renderSystem(): Promise<string> {
    return this.run(Effect.flatMap(this.ready, (session) => session.system))
  }

  /** Clears the conversation. */
  reset(): Promise<void> {
    return this.run(Effect.flatMap(this.ready, (session) => session.reset))
  }

  /** The server's id of a connected agent's session (to `resume` it later); `undefined` for a local agent. */
  sessionId(): Promise<string | undefined> {
    return this.run(Effect.map(Effect.serviceOption(RemoteSession.RemoteSession), (remote) =>
      remote._tag === "Some" ? remote.value.id : undefined))
  }

  /** Releases the model and everything else the agent holds. */
  async close(): Promise<void> {
    await this.runtime?.dispose()
  }

  /** `await using agent = …` closes the agent at the end of the block. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close()
  }

  private async run<A, Err>(effect: Effect.Effect<A, Err, Session>, signal?: AbortSignal): Promise<A> {
    const exit = await this.started().runPromiseExit(effect, signal === undefined ? {} : { signal })
    if (Exit.isSuccess(exit)) return exit.value
    throw rejectionOf(exit.cause)
  }
}

const abortOf = (signal: AbortSignal): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    if (signal.aborted) return resume(Effect.void)
    const onAbort = () => resume(Effect.void)
    signal.addEventListener("abort", onAbort, { once: true })
    return Effect.sync(() => signal.removeEventListener("abort", onAbort))
  })

/** The Tier-1 entry point. */
export const easyai = {
  /**
   * An agent on a local GGUF model, loaded in-process on first use:
   * `easyai.local("model.gguf")`, or a full `EngineConfig`.
   */
  local: (model: string | EngineConfig): EasyAgent<ModelLoadError> =>
    new EasyAgent(LocalChatModel.layerFrom(typeof model === "string" ? { modelPath: model } : model)),
  /**
   * An agent on an OpenAI-compatible endpoint, its tools running locally:
   * `easyai.remote("http://127.0.0.1:8080/v1", "my-model")`. Settings not
   * given here (API key, timeout, retries, TLS) come from `EASYAI_*`
   * environment variables; pass a full `ClientConfig` for everything else.
   */
  remote: (url: string | ClientConfig, model?: string): EasyAgent<ConfigError.ConfigError | ConfigurationError> =>
    new EasyAgent(
      typeof url === "string"
        ? RemoteChatModel.layerConfig({ baseUrl: url, ...(model === undefined ? {} : { model }) })
        : RemoteChatModel.layerFrom(url)
    ),
  /**
   * The agent of an easyai server, in a session there: its model, tools and
   * sandbox run on the server, asking this process before each tool call
   * (`.approval(…)`; every call is approved by default). The same
   * `ask`/`stream` as a local agent: `easyai.connect("http://127.0.0.1:8080",
   * { apiKey })`.
   */
  connect: (url: string, options: ConnectOptions = {}): EasyAgent<AgentError | ConfigurationError> =>
    new EasyAgent(
      NoChatModel.layer("a connected agent uses the server's model"),
      (approval) => RemoteSession.layer({ url, ...options, ...(approval === undefined ? {} : { approval }) })
    ),
  /** An agent on any `ChatModel` Layer: a local engine, a remote client, or a scripted double. */
  withModel: <E>(model: Layer.Layer<ChatModel, E>): EasyAgent<E> => new EasyAgent(model)
}
