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
import { Console, Effect, Layer, Option } from "effect"
import type { ChatMessage } from "../../domain/Message.js"
import { ConfigurationError, type ModelLoadError } from "../../domain/errors.js"
import type { ApprovalRequest } from "../../layers/approval/ApprovalLive.js"
import * as ClientLive from "../../layers/client/ClientLive.js"
import * as LocalChatModel from "../../layers/model/LocalChatModel.js"
import * as NoChatModel from "../../layers/model/NoChatModel.js"
import * as RemoteChatModel from "../../layers/model/RemoteChatModel.js"
import * as RemoteSession from "../../layers/remoteSession/RemoteSession.js"
import * as SessionStack from "../../layers/session/SessionStack.js"
import { ChatModel } from "../../services/ChatModel.js"
import { Session } from "../../services/Session.js"
import { cmdLinesRule } from "./cmdLines.js"
import { reportFailure } from "./failure.js"
import { narrowTools } from "./narrowTools.js"
import { askWith, makeLineEditor, repl } from "./repl.js"
import { loadSession, saveSession, sessionFileName } from "../../layers/session/sessionFile.js"
import { type ParsedFlags, settingsFor } from "./settings/options.js"
import { get, option, type Resolved } from "./settings/resolve.js"
import * as Stack from "./settings/stack.js"
import { Spinner } from "./spinner.js"
import { askOnTerminal, renderTurn, TurnRenderer } from "./terminal.js"

/** The model the settings name: local with `model`, else the server at `url`. */
const modelLayer = (settings: Resolved): Layer.Layer<ChatModel, ModelLoadError | ConfigurationError> =>
  Option.match(option(settings, "model"), {
    // Only the ChatModel goes on: the engine behind it stays inside.
    onSome: (modelPath) => Layer.effect(ChatModel, ChatModel).pipe(Layer.provide(LocalChatModel.layerFrom(Stack.engineConfig(settings, modelPath)))),
    onNone: () =>
      Layer.unwrapEffect(Effect.map(Stack.serverUrl(settings), (url) =>
        RemoteChatModel.layer.pipe(Layer.provide(ClientLive.layer(Stack.clientConfig(settings, url))))))
  })

/** Who confirms a tool call that no flag or pattern approved: the person at the terminal. */
type Ask = (request: ApprovalRequest) => Effect.Effect<boolean>

/** The whole stack for the settings, on `model`, which it provides too (built once: a Layer is shared within one graph). */
const stackLayer = <E>(settings: Resolved, model: Layer.Layer<ChatModel, E>, ask: Ask | undefined, history: ReadonlyArray<ChatMessage> = []) =>
  Layer.unwrapEffect(Effect.map(
    Stack.stackOptions(settings, {
      model,
      approval: Stack.approval(settings, ask),
      history,
      // The remote chat's default toolset has the system_* tools, as the reference's remote CLI does.
      system: Option.isNone(option(settings, "model")),
      ...(get(settings, "shell") === true ? { systemAppend: [cmdLinesRule] } : {})
    }),
    (options) => Layer.merge(model, SessionStack.layer(options))
  ))

/**
 * The stack of `--remote-agent`: the session is the server's (its loop, its
 * tools); what stays here is only what the terminal shows around it (the
 * model's name, an empty toolbelt). Tool calls not covered by --yes or
 * --auto-approve are asked through `ask`: the server's tools were not chosen
 * by this command line.
 */
const remoteAgentLayer = (settings: Resolved, ask: Ask | undefined) =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const client = Stack.clientConfig(settings, yield* Stack.serverUrl(settings))
    const remote = RemoteSession.layer({
      url: client.baseUrl,
      ...(client.tls === undefined ? {} : { tls: client.tls }),
      ...(client.apiKey === undefined ? {} : { apiKey: client.apiKey }),
      // The server's tools were not chosen by this command line: each call asks, unless --yes or --auto-approve covers it.
      approval: Stack.approval(settings, ask, false)
    })
    // The remote session overrides the local one the filler stack provides, which has no tools of its own.
    const model = modelLayer(settings)
    const filler = Layer.merge(model, SessionStack.layer({ model, session: { withDefaultTools: false }, plan: false }))
    return Layer.merge(filler, remote)
  }))

/** The stack the settings ask for: a local session on `--model` or `--url`, or the server's agent with `--remote-agent`. */
const sessionLayer = (settings: Resolved, ask: Ask | undefined, history: ReadonlyArray<ChatMessage>) =>
  get(settings, "remoteAgent") === true ? remoteAgentLayer(settings, ask) : stackLayer(settings, modelLayer(settings), ask, history)

/** `--remote-agent` drives a server's session: it needs the server and takes nothing that is only local. */
const checkRemoteAgent = (settings: Resolved) => {
  const local = [
    ["--model", Option.isSome(option(settings, "model"))],
    ["--continue", get(settings, "continue") === true],
    ["--shell", get(settings, "shell") === true],
    ["--sandbox", Option.isSome(option(settings, "sandbox"))],
    ["--allow-bash", get(settings, "allowBash") === true],
    ["--mcp", (get(settings, "mcp") ?? []).length > 0]
  ] as const
  const given = local.filter(([, on]) => on).map(([name]) => name)
  return given.length > 0
    ? new ConfigurationError({ message: `--remote-agent runs the server's agent with the server's tools and session: drop ${given.join(", ")}` })
    : Effect.void
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

/** `--shell` gives the model bash, in `--sandbox` or else the directory the shell starts in. */
const shellImplies = (settings: Resolved): Resolved => {
  if (get(settings, "shell") !== true) return settings
  const values = new Map(settings.values)
  values.set("allowBash", { value: true, origin: { _tag: "Flag", flag: "--shell" } })
  if (!values.has("sandbox")) values.set("sandbox", { value: process.cwd(), origin: { _tag: "Flag", flag: "--shell" } })
  return { ...settings, values }
}

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
const saver = (settings: Resolved) => {
  const directory = process.cwd()
  return get(settings, "localSession") === false
    ? Effect.void
    : Effect.flatMap(Session, (session) => Effect.flatMap(session.history, (history) => saveSession(directory, history)))
}

const maxTokens = (settings: Resolved) => Stack.optionalField("maxTokens", option(settings, "maxTokens"))

/** The registry narrowed to `--tools`, and the system prompt's catalogue with it. */
const narrowed = (settings: Resolved) =>
  Effect.gen(function*() {
    const tools = option(settings, "tools")
    yield* narrowTools(tools)
    if (Option.isSome(tools)) yield* Effect.flatMap(Session, (session) => session.refreshSystem)
  })

/** One turn, rendered. */
const answerOnce = (settings: Resolved, prompt: string, spinner: Spinner) =>
  Effect.gen(function*() {
    yield* narrowed(settings)
    const session = yield* Session
    const renderer = new TurnRenderer({
      noReasoning: get(settings, "reasoning") === false,
      promptProgress: get(settings, "promptProgress") !== false,
      spinner
    })
    yield* renderTurn(session.stream(prompt, maxTokens(settings)), renderer, saver(settings))
  })

/** The interactive chat or hybrid shell. */
const interactively = (settings: Resolved, history: ReadonlyArray<ChatMessage>) =>
  Effect.gen(function*() {
    const editor = yield* makeLineEditor
    const spinner = new Spinner()
    const shell = get(settings, "shell") === true
    yield* Effect.gen(function*() {
      yield* narrowed(settings)
      if (history.length > 0) yield* Console.log(`(continuing: ${history.length} messages from ./${sessionFileName})`)
      const model = yield* Effect.flatMap(ChatModel, (chatModel) => chatModel.info)
      const context = model.contextSize === undefined ? "" : `, ctx ${model.contextSize}`
      yield* Console.error(`easyai · ${model.name} (${model.backend}${context}) · /help for commands, Ctrl+D to leave`)
      if (shell) yield* Console.error("Commands run in your $SHELL; start a line with > to ask the model.")
      const remote = yield* Effect.serviceOption(RemoteSession.RemoteSession)
      if (Option.isSome(remote)) yield* Console.error(`The server's agent runs this chat: session ${remote.value.id}.`)
      yield* repl(editor, {
        ...Stack.optionalField("contextSize", Option.fromNullable(model.contextSize)),
        noReasoning: get(settings, "reasoning") === false,
        promptProgress: get(settings, "promptProgress") !== false,
        autoCompress: get(settings, "autoCompress") !== false,
        shell,
        spinner,
        ...maxTokens(settings),
        changed: saver(settings)
      })
    }).pipe(
      Effect.provide(sessionLayer(settings, askWith(editor.readline, spinner), history)),
      Effect.ensuring(Effect.sync(() => {
        spinner.clear()
        editor.readline.close()
      }))
    )
  })

/** The chat's handler. */
export const chat = (flags: ParsedFlags) =>
  Effect.gen(function*() {
    const settings = shellImplies(yield* settingsFor("chat", flags))
    return yield* run(settings).pipe(
      // The one-line report comes after; the cause in full is a debug line (on stderr with --verbose, in the log file).
      Effect.tapErrorCause((cause) => Effect.logDebug("failed", cause)),
      Effect.provide(Stack.observabilityLayer(settings))
    )
  }).pipe(reportFailure("easyai"))

/** The chat for its settings: the system prompt shown, one answer, or the interactive chat. */
const run = (settings: Resolved) =>
  Effect.gen(function*() {
    yield* Stack.checkCombinations(settings)
    const remoteAgent = get(settings, "remoteAgent") === true
    if (remoteAgent) yield* checkRemoteAgent(settings)
    if (get(settings, "showSystemPrompt") === true && remoteAgent) {
      // The server's agent composes its own prompt: ask a session of it, then end that session.
      return yield* Effect.gen(function*() {
        yield* Console.log(yield* (yield* Session).renderSystem)
        yield* (yield* RemoteSession.RemoteSession).close
      }).pipe(Effect.provide(remoteAgentLayer(settings, undefined)))
    }
    if (get(settings, "showSystemPrompt") === true) {
      return yield* narrowTools(option(settings, "tools")).pipe(
        Effect.zipRight(Effect.flatMap(Session, (session) => Effect.flatMap(session.renderSystem, Console.log))),
        Effect.provide(stackLayer(settings, NoChatModel.layer("pass --model or --url to chat"), undefined))
      )
    }
    const shell = get(settings, "shell") === true
    const flagPrompt = option(settings, "prompt")
    const interactive = Option.isNone(flagPrompt) && process.stdin.isTTY === true
    if (shell && !interactive) {
      return yield* new ConfigurationError({ message: "--shell is interactive: it needs a terminal and no -p" })
    }
    const prompt = Option.isSome(flagPrompt) ? flagPrompt.value : interactive ? "" : yield* readStdin
    if (!interactive && prompt.trim() === "") return yield* new ConfigurationError({ message: "the prompt is empty" })
    if (Option.isNone(option(settings, "model")) && Option.isNone(option(settings, "url"))) {
      return yield* new ConfigurationError({ message: "no model: pass --model FILE for a local model or --url URL for a server" })
    }
    const history = get(settings, "continue") === true ? yield* loadSession(process.cwd()) : []
    if (interactive) return yield* interactively(settings, history)
    const spinner = new Spinner()
    const ask = process.stdin.isTTY ? askOnTerminal(spinner) : undefined
    // From before the model loads: a load or a stop that hangs can be left with a second Ctrl+C.
    yield* Effect.scoped(Effect.zipRight(
      secondInterruptExits,
      answerOnce(settings, prompt, spinner).pipe(Effect.provide(sessionLayer(settings, ask, history)))
    ))
  })
