/**
 * `easyai chat` (also `easyai` with no subcommand): an agent in the
 * terminal, on a local GGUF model (`--model`) or a remote server (`--url`).
 * With `-p "…"` it answers once — the answer on stdout, everything else on
 * stderr, a non-zero exit code on failure; the prompt can also come on
 * stdin (`echo "…" | easyai -m model.gguf`). On a terminal without `-p` it
 * is the interactive REPL.
 *
 * @module
 */
import { Command } from "@effect/cli"
import { Config as EffectConfig, Console, Effect, Layer, Option, type Redacted } from "effect"
import type { ChatModelError } from "../../domain/errors.js"
import type { ChatMessage } from "../../domain/Message.js"
import { ConfigurationError } from "../../domain/errors.js"
import { Penalties } from "../../domain/Sampling.js"
import * as ApprovalLive from "../../layers/approval/ApprovalLive.js"
import type { ApprovalRequest } from "../../layers/approval/ApprovalLive.js"
import * as ClientLive from "../../layers/client/ClientLive.js"
import * as LocalChatModel from "../../layers/model/LocalChatModel.js"
import * as NoChatModel from "../../layers/model/NoChatModel.js"
import * as RemoteChatModel from "../../layers/model/RemoteChatModel.js"
import * as RemoteSession from "../../layers/remoteSession/RemoteSession.js"
import * as SessionStack from "../../layers/session/SessionStack.js"
import { ChatModel } from "../../services/ChatModel.js"
import { Session } from "../../services/Session.js"
import * as Config from "./config.js"
import { reportFailure } from "./failure.js"
import { logging } from "./logging.js"
import { fill, optionalField } from "./optionalField.js"
import { mcpApiKey, parseMcpServer } from "./mcpServers.js"
import { clientOverrides } from "./remoteFlags.js"
import { chatFlags } from "./chatFlags.js"
import { cmdLinesRule } from "./cmdLines.js"
import { progressOption } from "./downloadProgress.js"
import { askWith, makeLineEditor, repl } from "./repl.js"
import { loadSession, saveSession, sessionFileName } from "./sessionFile.js"
import { Spinner } from "./spinner.js"
import { askOnTerminal, renderTurn, TurnRenderer } from "./terminal.js"
import * as ToolFlags from "./toolFlags.js"

/** What the chat's flags parsed to. */
export type Flags = Command.Command.ParseConfig<typeof chatFlags>

const penalties = (flag: Flags) =>
  Option.isNone(flag.repeatPenalty) && Option.isNone(flag.frequencyPenalty) && Option.isNone(flag.presencePenalty)
    ? undefined
    : new Penalties({
      repeatPenalty: Option.getOrElse(flag.repeatPenalty, () => Penalties.default.repeatPenalty),
      frequencyPenalty: Option.getOrElse(flag.frequencyPenalty, () => Penalties.default.frequencyPenalty),
      presencePenalty: Option.getOrElse(flag.presencePenalty, () => Penalties.default.presencePenalty)
    })

/** The model the flags name: local with `--model`, else remote (`--url` or `EASYAI_URL`). */
const modelLayer = (flag: Flags): Layer.Layer<ChatModel, ChatModelError | ConfigurationError | unknown> => {
  const penalty = penalties(flag)
  if (Option.isSome(flag.model)) {
    return LocalChatModel.layerFrom({
      modelPath: flag.model.value,
      ...progressOption(),
      ...optionalField("contextSize", flag.ctx),
      ...optionalField("threads", flag.threads),
      ...(penalty === undefined ? {} : { penalties: penalty })
    })
  }
  const overrides = clientOverrides(flag)
  return RemoteChatModel.layer.pipe(Layer.provide(ClientLive.layerConfig({
    ...overrides,
    ...(flag.noPromptProgress ? { promptProgress: false } : {}),
    ...(penalty === undefined ? {} : { penalties: penalty })
  })))
}

/** Who confirms a tool call that no flag or pattern approved: the person at the terminal. */
type Ask = (request: ApprovalRequest) => Effect.Effect<boolean>

/** The whole stack for the flags, on `model`, which it provides too (built once: a Layer is shared within one graph). */
const stackLayer = <E>(
  flag: Flags,
  model: Layer.Layer<ChatModel, E>,
  mcpKey: Option.Option<Redacted.Redacted<string>>,
  ask: Ask | undefined,
  history: ReadonlyArray<ChatMessage> = []
) =>
  Layer.merge(model, SessionStack.layer({
    model,
    toolMode: Option.getOrElse(flag.toolsMode, () => "split" as const),
    approval: flag.yes
      ? ApprovalLive.autoApprove
      : ApprovalLive.policy({
        autoApproveLocal: true,
        // In the hybrid shell the model's commands run in the user's own directory: each is confirmed, unless auto-approved.
        ...(flag.shell ? { confirmLocal: ["bash"] } : {}),
        autoApprove: ToolFlags.names(flag.autoApprove),
        ...(ask === undefined ? {} : { ask })
      }),
    ...ToolFlags.hostOption(flag),
    ...ToolFlags.webOption(flag),
    ...optionalField("memory", flag.memory),
    ...Option.match(flag.skills, { onNone: () => ({}), onSome: (dir) => ({ skills: { directories: [dir] } }) }),
    ...(flag.noPlan ? { plan: false } : {}),
    // The remote chat's default toolset has the system_* tools, as the reference's remote CLI does.
    ...(Option.isNone(flag.model) ? { system: true } : {}),
    ...(flag.mcp.length === 0 ? {} : { mcp: { servers: flag.mcp.map((text) => parseMcpServer(text, mcpKey)) } }),
    session: {
      history,
      ...(flag.noTools ? { withDefaultTools: false } : {}),
      noBuiltinSystem: flag.noBuiltinSystem,
      ...(flag.shell ? { systemAppend: [cmdLinesRule] } : {}),
      ...optionalField("system", Option.orElse(flag.system, () => Option.map(flag.systemFile, ([, text]) => text))),
      ...optionalField("preset", flag.preset),
      sampling: {
        ...optionalField("temperature", flag.temperature),
        ...optionalField("topP", flag.topP),
        ...optionalField("topK", flag.topK),
        ...optionalField("minP", flag.minP)
      }
    }
  }))

/**
 * The stack of `--remote-agent`: the session is the server's (its loop, its
 * tools); what stays here is only what the terminal shows around it (the
 * model's name, an empty toolbelt). Tool calls not covered by --yes or
 * --auto-approve are asked through `ask`: the server's tools were not chosen
 * by this command line.
 */
const remoteAgentLayer = (flag: Flags, ask: Ask | undefined) =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const url = Option.isSome(flag.url) ? flag.url.value : yield* EffectConfig.string("EASYAI_URL")
    const key = Option.isSome(flag.apiKey) ? flag.apiKey : yield* EffectConfig.option(EffectConfig.redacted("EASYAI_API_KEY"))
    const tls = clientOverrides(flag).tls
    const local: Flags = { ...flag, noTools: true, mcp: [], sandbox: Option.none(), allowBash: false, externalTools: Option.none(), memory: Option.none(), skills: Option.none() }
    const remote = RemoteSession.layer({
      url,
      ...(tls === undefined ? {} : { tls }),
      ...Option.match(key, { onNone: () => ({}), onSome: (apiKey) => ({ apiKey }) }),
      approval: flag.yes
        ? ApprovalLive.autoApprove
        : ApprovalLive.policy({ autoApprove: ToolFlags.names(flag.autoApprove), ...(ask === undefined ? {} : { ask }) })
    })
    // The remote session overrides the local one the filler stack provides.
    return Layer.merge(stackLayer(local, modelLayer(flag), Option.none(), undefined), remote)
  }))

/** The stack the flags ask for: a local session on `--model` or `--url`, or the server's agent with `--remote-agent`. */
const sessionLayer = (
  flag: Flags,
  mcpKey: Option.Option<Redacted.Redacted<string>>,
  ask: Ask | undefined,
  history: ReadonlyArray<ChatMessage>
) => (flag.remoteAgent ? remoteAgentLayer(flag, ask) : stackLayer(flag, modelLayer(flag), mcpKey, ask, history))

/**
 * The flags with the settings file's values filled in where a flag was not
 * given: flags > the matching `[MODEL_<pattern>]` > `[ENGINE]` / `[cli]` >
 * the environment (read later, by the client) > defaults.
 */
const withConfig = (flag: Flags, config: Config.ConfigFile, engine: Config.EngineSettings): Flags => {
  const cli = config.cli
  return {
    ...ToolFlags.withCliTools(flag, cli),
    model: fill(flag.model, cli.model),
    url: fill(flag.url, cli.url),
    apiKey: fill(flag.apiKey, cli.apiKey),
    modelName: fill(flag.modelName, cli.modelName),
    timeout: fill(flag.timeout, cli.timeout),
    httpRetries: fill(flag.httpRetries, cli.httpRetries),
    preset: fill(flag.preset, engine.preset),
    temperature: fill(flag.temperature, engine.temperature),
    topP: fill(flag.topP, engine.topP),
    topK: fill(flag.topK, engine.topK),
    minP: fill(flag.minP, engine.minP),
    repeatPenalty: fill(flag.repeatPenalty, engine.repeatPenalty),
    frequencyPenalty: fill(flag.frequencyPenalty, engine.frequencyPenalty),
    presencePenalty: fill(flag.presencePenalty, engine.presencePenalty),
    maxTokens: fill(flag.maxTokens, engine.maxTokens),
    ctx: fill(flag.ctx, engine.context),
    threads: fill(flag.threads, engine.threads),
    autoApprove: fill(flag.autoApprove, cli.autoApprove?.join(",")),
    yes: flag.yes || cli.yes === true,
    shell: flag.shell || cli.shell === true,
    verbose: flag.verbose || cli.verbose === true,
    logFile: fill(flag.logFile, cli.logFile),
    noReasoning: flag.noReasoning || cli.reasoning === false,
    noAutoCompress: flag.noAutoCompress || cli.autoCompress === false,
    noPromptProgress: flag.noPromptProgress || cli.promptProgress === false
  }
}

/** The flags after the settings file: its warnings logged, its model section matched. */
const settled = (flag: Flags) =>
  Effect.gen(function*() {
    const config = yield* Config.readSettings(flag.config)
    const model = Option.orElse(flag.model, () => Option.fromNullable(config.cli.model))
    const engine = Option.isSome(model) ? (yield* Config.modelSettings(config, model.value)).settings : config.engine
    return shellImplies(withConfig(flag, config, engine))
  })

/** `--shell` gives the model bash, in `--sandbox` or else the directory the shell starts in. */
const shellImplies = (flag: Flags): Flags =>
  flag.shell ? { ...flag, allowBash: true, sandbox: Option.orElse(flag.sandbox, () => Option.some(process.cwd())) } : flag

/** The prompt of a one-shot run: `-p`, else all of stdin when it is not a terminal. */
const readStdin = Effect.async<string>((resume) => {
  const chunks: Array<Buffer> = []
  process.stdin.on("data", (chunk: Buffer) => chunks.push(chunk))
  process.stdin.once("end", () => resume(Effect.succeed(Buffer.concat(chunks).toString("utf8"))))
})

/**
 * Saves the conversation after a change, unless --no-local-session, in the
 * directory easyai started in: where `--continue` looks, even after the
 * hybrid shell's `cd`.
 */
const saver = (flag: Flags) => {
  const directory = process.cwd()
  return flag.noLocalSession
    ? Effect.void
    : Effect.flatMap(Session, (session) => Effect.flatMap(session.history, (history) => saveSession(directory, history)))
}

/**
 * While the one-shot answer runs: the first SIGINT stops it gracefully (the
 * runtime interrupts the program); a second one exits at once, so a stop
 * that hangs can still be escaped.
 */
const secondInterruptExits = Effect.acquireRelease(
  Effect.sync(() => {
    let seen = 0
    const onSignal = () => {
      seen += 1
      if (seen >= 2) process.exit(130)
    }
    process.on("SIGINT", onSignal)
    return onSignal
  }),
  (onSignal) => Effect.sync(() => process.off("SIGINT", onSignal))
)

/** One turn, rendered. */
const answerOnce = (flag: Flags, prompt: string, spinner: Spinner) =>
  Effect.gen(function*() {
    yield* ToolFlags.narrowTools(flag.tools)
    const session = yield* Session
    // The catalogue in the prompt follows the narrowed registry.
    if (Option.isSome(flag.tools)) yield* session.refreshSystem
    const renderer = new TurnRenderer({ noReasoning: flag.noReasoning, promptProgress: !flag.noPromptProgress, spinner })
    yield* renderTurn(session.stream(prompt, optionalField("maxTokens", flag.maxTokens)), renderer, saver(flag))
  })

/** The interactive chat or hybrid shell. */
const interactively = (flag: Flags, mcpKey: Option.Option<Redacted.Redacted<string>>, history: ReadonlyArray<ChatMessage>) =>
  Effect.gen(function*() {
    const editor = yield* makeLineEditor
    const spinner = new Spinner()
    yield* Effect.gen(function*() {
      yield* ToolFlags.narrowTools(flag.tools)
      if (Option.isSome(flag.tools)) yield* Effect.flatMap(Session, (session) => session.refreshSystem)
      if (history.length > 0) yield* Console.log(`(continuing: ${history.length} messages from ./${sessionFileName})`)
      const model = yield* Effect.flatMap(ChatModel, (chatModel) => chatModel.info)
      const context = model.contextSize === undefined ? "" : `, ctx ${model.contextSize}`
      yield* Console.error(`easyai · ${model.name} (${model.backend}${context}) · /help for commands, Ctrl+D to leave`)
      if (flag.shell) yield* Console.error("Commands run in your $SHELL; start a line with > to ask the model.")
      const remote = yield* Effect.serviceOption(RemoteSession.RemoteSession)
      if (Option.isSome(remote)) yield* Console.error(`The server's agent runs this chat: session ${remote.value.id}.`)
      yield* repl(editor, {
        ...optionalField("contextSize", Option.fromNullable(model.contextSize)),
        noReasoning: flag.noReasoning,
        promptProgress: !flag.noPromptProgress,
        autoCompress: !flag.noAutoCompress,
        shell: flag.shell,
        spinner,
        ...optionalField("maxTokens", flag.maxTokens),
        changed: saver(flag)
      })
    }).pipe(
      Effect.provide(sessionLayer(flag, mcpKey, askWith(editor.readline, spinner), history)),
      Effect.ensuring(Effect.sync(() => {
        spinner.clear()
        editor.readline.close()
      }))
    )
  })

/** The chat's handler. */
export const chat = (given: Flags) =>
  Effect.gen(function*() {
    const flag = yield* settled(given)
    return yield* run(flag).pipe(
      // The one-line report comes after; the cause in full is a debug line (on stderr with --verbose, in the log file).
      Effect.tapErrorCause((cause) => Effect.logDebug("failed", cause)),
      Effect.provide(logging({ verbose: flag.verbose, ...optionalField("logFile", flag.logFile) }))
    )
  }).pipe(reportFailure("easyai"))

/** `--remote-agent` drives a server's session: it needs the server and takes nothing that is only local. */
const checkRemoteAgent = (flag: Flags) => {
  const local = [
    ["--model", Option.isSome(flag.model)],
    ["--continue", flag.continue],
    ["--shell", flag.shell],
    ["--sandbox", Option.isSome(flag.sandbox)],
    ["--allow-bash", flag.allowBash],
    ["--mcp", flag.mcp.length > 0]
  ] as const
  const given = local.filter(([, on]) => on).map(([name]) => name)
  return given.length > 0
    ? new ConfigurationError({ message: `--remote-agent runs the server's agent with the server's tools and session: drop ${given.join(", ")}` })
    : Effect.void
}

/** The chat for settled flags: the system prompt shown, one answer, or the interactive chat. */
const run = (flag: Flags) =>
  Effect.gen(function*() {
    yield* ToolFlags.checkHostFlags(flag)
    const mcpKey = yield* mcpApiKey
    if (flag.showSystemPrompt && flag.remoteAgent) {
      // The server's agent composes its own prompt: ask a session of it, then end that session.
      return yield* Effect.gen(function*() {
        yield* Console.log(yield* (yield* Session).renderSystem)
        yield* (yield* RemoteSession.RemoteSession).close
      }).pipe(Effect.provide(remoteAgentLayer(flag, undefined)))
    }
    if (flag.showSystemPrompt) {
      return yield* ToolFlags.narrowTools(flag.tools).pipe(
        Effect.zipRight(Effect.flatMap(Session, (session) => Effect.flatMap(session.renderSystem, Console.log))),
        Effect.provide(stackLayer(flag, NoChatModel.layer("pass --model or --url to chat"), mcpKey, undefined))
      )
    }
    const interactive = Option.isNone(flag.prompt) && process.stdin.isTTY === true
    if (flag.shell && !interactive) {
      return yield* new ConfigurationError({ message: "--shell is interactive: it needs a terminal and no -p" })
    }
    const prompt = Option.isSome(flag.prompt) ? flag.prompt.value : interactive ? "" : yield* readStdin
    if (!interactive && prompt.trim() === "") return yield* new ConfigurationError({ message: "the prompt is empty" })
    if (Option.isNone(flag.model) && Option.isNone(flag.url) && (process.env["EASYAI_URL"] ?? "") === "") {
      return yield* new ConfigurationError({ message: "no model: pass --model FILE for a local model or --url URL for a server" })
    }
    if (flag.remoteAgent) yield* checkRemoteAgent(flag)
    const history = flag.continue ? yield* loadSession(process.cwd()) : []
    if (interactive) return yield* interactively(flag, mcpKey, history)
    const spinner = new Spinner()
    const ask = process.stdin.isTTY ? askOnTerminal(spinner) : undefined
    // From before the model loads: a load or a stop that hangs can be left with a second Ctrl+C.
    yield* Effect.scoped(Effect.zipRight(
      secondInterruptExits,
      answerOnce(flag, prompt, spinner).pipe(Effect.provide(sessionLayer(flag, mcpKey, ask, history)))
    ))
  })
