/**
 * The interactive chat, and the hybrid shell (`--shell`) on the same loop: a
 * prompt, streamed answers, `/` commands, and Ctrl+C that stops whatever
 * runs (the work's fiber is interrupted, which cancels the model and any
 * running tool; a shell command gets the signal itself) and at the prompt
 * clears the line; three quick Ctrl+C force an exit; Ctrl+D exits.
 *
 * @module
 */
import { Cause, Effect, Exit, Fiber, Option, Queue, Ref, Runtime } from "effect"
import { createInterface, type Interface } from "node:readline"
import type { Usage } from "../../domain/AgentEvent.js"
import { autoCompressShare, contextFill } from "../../domain/contextFill.js"
import { parsePresetPrefix, type PresetName } from "../../domain/Sampling.js"
import type { ApprovalRequest } from "../../layers/approval/ApprovalLive.js"
import { interruptedMark, Session } from "../../services/Session.js"
import { offerCommands } from "./cmdLines.js"
import { describeFailure } from "./failure.js"
import { applyBuiltin, runInForeground, shellPrompt } from "./shell.js"
import { parseShellLine } from "./shellLine.js"
import { compressConversation, isSlashCommand, runSlashCommand } from "./slashCommands.js"
import type { Spinner } from "./spinner.js"
import { approvalQuestion, approved, renderTurn, TurnRenderer } from "./terminal.js"

/** The terminal line editor the REPL reads with (and asks approvals on), and the lines entered on it. */
export interface LineEditor {
  readonly readline: Interface
  /** Every line entered, from the editor's start on; none at the end of input. */
  readonly lines: Queue.Queue<Option.Option<string>>
}

/**
 * The line editor, collecting lines from the start: what is typed while the
 * model loads is kept and answered once the prompt is ready, not lost.
 */
export const makeLineEditor: Effect.Effect<LineEditor> = Effect.gen(function*() {
  const lines = yield* Queue.unbounded<Option.Option<string>>()
  const readline = createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY === true })
  readline.on("line", (line) => Queue.unsafeOffer(lines, Option.some(line)))
  readline.on("close", () => Queue.unsafeOffer(lines, Option.none()))
  return { readline, lines }
})

/** The approval question on the REPL's own line editor (after clearing the spinner). */
export const askWith = (editor: Interface, spinner: Spinner) => (request: ApprovalRequest): Effect.Effect<boolean> =>
  Effect.async<boolean>((resume) => {
    spinner.clear()
    editor.question(approvalQuestion(request), (answer) => resume(Effect.succeed(approved(answer))))
  })

/** How many times in a row a `CMD:` output may go back to the model before the shell waits for the person. */
const maxHandBacks = 10

/** How close three Ctrl+C must be to force an exit, in milliseconds. */
const forceExitWindow = 1500

/** How the REPL runs. */
export interface ReplOptions {
  readonly noReasoning: boolean
  /** Show prompt-evaluation progress in the spinner. */
  readonly promptProgress: boolean
  readonly maxTokens?: number
  /** The hybrid shell: `> text` asks the model, other lines are shell commands. */
  readonly shell: boolean
  readonly spinner: Spinner
  /** The model's context size, when known before its first turn reports it. */
  readonly contextSize?: number
  /** Called after every change to the conversation (a hop, a reset), to save it. */
  readonly changed: Effect.Effect<void, never, Session>
  /**
   * Compress the conversation before a turn when the last one filled at
   * least {@link autoCompressShare} of the context (as `/compress` does).
   */
  readonly autoCompress: boolean
}

/** Runs the REPL until /exit or Ctrl+D. */
export const repl = ({ lines, readline: editor }: LineEditor, options: ReplOptions) =>
  Effect.gen(function*() {
    const session = yield* Session
    const changed = Effect.provideService(options.changed, Session, session)
    const runtime = yield* Effect.runtime<never>()
    const preset = yield* Ref.make(Option.none<PresetName>())
    let contextSize = options.contextSize
    // How full the last turn left the context; unknown again once the conversation changed.
    let fill: number | undefined
    const forgetFill = Effect.sync(() => {
      fill = undefined
    })
    let running: Fiber.RuntimeFiber<unknown, unknown> | undefined
    const presses: Array<number> = []

    editor.on("SIGINT", () => {
      const now = Date.now()
      presses.push(now)
      while (presses.length > 0 && now - (presses[0] ?? now) > forceExitWindow) presses.shift()
      if (presses.length >= 3) process.exit(130)
      if (running !== undefined) {
        Runtime.runFork(runtime)(Fiber.interruptFork(running))
        return
      }
      // At the prompt: clear the line and prompt again.
      editor.write(null, { ctrl: true, name: "u" })
      process.stdout.write("\n")
      editor.prompt()
    })

    // Lines typed while an answer streams (or the model loads) are kept for later, not lost: a queue, not `question`.
    const readLine = Effect.zipRight(
      Effect.sync(() => {
        editor.setPrompt(options.shell ? shellPrompt() : "> ")
        editor.prompt()
      }),
      Queue.take(lines)
    )

    const say = (text: string) => Effect.sync(() => process.stdout.write(`${text}\n`))

    // A command that changes the conversation (/compress, /reset, /system) makes the last fill stale.
    const commandContext = { shell: options.shell, preset, spinner: options.spinner, changed: Effect.zipRight(forgetFill, changed) }

    /** Runs `work` as the thing Ctrl+C stops; a failure is reported, not raised. */
    const interruptibly = <A, E, R>(work: Effect.Effect<A, E, R>) =>
      Effect.gen(function*() {
        const fiber = yield* Effect.fork(work)
        running = fiber
        const exit = yield* Fiber.await(fiber)
        running = undefined
        options.spinner.clear()
        if (Exit.isSuccess(exit)) return Option.some(exit.value)
        yield* say(Cause.isInterruptedOnly(exit.cause) ? "\n(stopped)" : `\nerror: ${describeFailure(Cause.squash(exit.cause))}`)
        return Option.none()
      })

    /** Compresses the conversation first when the last turn left the context nearly full; says so. */
    const compressIfFull = Effect.gen(function*() {
      if (!options.autoCompress || fill === undefined || fill < autoCompressShare) return
      yield* say(`(the context is ${Math.round(fill * 100)}% full: compressing the conversation first; --no-auto-compress turns this off)`)
      // Stopped or failed, the turn still goes ahead on the whole conversation.
      yield* interruptibly(compressConversation(commandContext))
      yield* forgetFill
    })

    const turn = (text: string, turnPreset: Option.Option<PresetName>, temperature: number | undefined) =>
      Effect.gen(function*() {
        yield* compressIfFull
        const renderer = new TurnRenderer({
          noReasoning: options.noReasoning,
          promptProgress: options.promptProgress,
          summary: true,
          spinner: options.spinner,
          ...(contextSize === undefined ? {} : { contextSize })
        })
        const events = session.stream(text, {
          ...Option.match(turnPreset, { onNone: () => ({}), onSome: (name) => ({ preset: name }) }),
          ...(temperature === undefined ? {} : { sampling: { temperature } }),
          ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
          // Ctrl+C keeps what was shown, marked as interrupted: the model and the session file see where it was cut.
          keepInterrupted: true
        })
        const finished = yield* interruptibly(renderTurn(events, renderer, changed))
        if (Option.isNone(finished)) yield* changed
        const usage: Usage | undefined = renderer.lastUsage
        if (usage?.contextSize !== undefined) contextSize = usage.contextSize
        fill = usage === undefined ? undefined : contextFill(usage)
      })

    /** A line for the model, which may start with a preset (alone, it switches to it). */
    const ask = (text: string) =>
      Effect.gen(function*() {
        const prefix = parsePresetPrefix(text)
        if (Option.isNone(prefix)) return yield* turn(text, yield* Ref.get(preset), undefined)
        if (prefix.value.text.trim() === "") {
          yield* Ref.set(preset, Option.some(prefix.value.preset))
          return yield* say(`[preset → ${prefix.value.preset}]`)
        }
        yield* turn(prefix.value.text, Option.some(prefix.value.preset), Option.getOrUndefined(prefix.value.temperature))
      })

    /** The text of the model's last answer, unless the turn was stopped. */
    const lastAnswer = Effect.map(session.history, (history) => {
      const last = history.at(-1)
      return last?._tag === "AssistantMessage" && !last.content.endsWith(interruptedMark) ? last.content : ""
    })

    /**
     * In the hybrid shell, a question to the model, then its `CMD:` lines
     * offered to run; the output handed back is the next question (each one
     * confirmed by the person, at most {@link maxHandBacks} in a row).
     */
    const askOfferingCommands = (text: string) =>
      Effect.gen(function*() {
        let next: ReadonlyArray<string> = [text]
        for (let round = 0; round <= maxHandBacks && next.length > 0; round++) {
          for (const message of next) yield* ask(message)
          const offered = yield* interruptibly(offerCommands(yield* lastAnswer, editor, say))
          next = Option.getOrElse(Option.flatten(offered), () => [])
        }
      })

    /** A line of the hybrid shell that is not a `/` command. */
    const shellLine = (text: string) =>
      Effect.gen(function*() {
        const line = parseShellLine(text, process.env)
        switch (line._tag) {
          case "Blank":
            return
          case "Ask":
            return line.text === "" ? yield* say("usage: > your question") : yield* askOfferingCommands(line.text)
          case "Cd":
          case "Export":
          case "Unset": {
            const said = yield* applyBuiltin(line)
            return said === "" ? undefined : yield* say(said)
          }
          case "Run":
            yield* runInForeground(line.command, editor)
            return
          case "Invalid":
            return yield* say(line.message)
        }
      })

    while (true) {
      const line = yield* readLine
      if (Option.isNone(line)) break
      const text = line.value.trim()
      if (text === "") continue
      // In the hybrid shell only easyai's own commands are taken: `/usr/bin/env` is a command for $SHELL.
      if (options.shell ? isSlashCommand(text) : text.startsWith("/")) {
        const outcome = yield* interruptibly(runSlashCommand(text, commandContext))
        if (Option.getOrUndefined(outcome) === "exit") break
        continue
      }
      yield* options.shell ? shellLine(text) : ask(text)
    }
    editor.close()
  })
