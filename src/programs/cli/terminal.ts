/**
 * How a turn looks in a terminal: the answer on stdout as it streams,
 * everything else (reasoning, tool indicators, the plan, the spinner,
 * warnings) on stderr, so `easyai -p "…" > answer.txt` keeps only the answer.
 *
 * @module
 */
import { Effect, Stream } from "effect"
import { createInterface } from "node:readline"
import type { AgentEvent, HopReset, PromptProgress, Usage } from "../../domain/AgentEvent.js"
import { displayToolName } from "../../domain/mcp.js"
import type { PlanSnapshot } from "../../domain/plan.js"
import { renderPlan } from "./planView.js"
import { ReasoningFilter } from "../../domain/reasoningFilter.js"
import type { ApprovalRequest } from "../../layers/approval/ApprovalLive.js"
import { Plan } from "../../services/Plan.js"
import { Spinner } from "./spinner.js"

const dim = (text: string) => (process.stderr.isTTY ? `\u001b[2m${text}\u001b[0m` : text)

const write = (stream: NodeJS.WriteStream, text: string) =>
  text === "" ? Effect.void : Effect.async<void>((resume) => {
    stream.write(text, () => resume(Effect.void))
  })

/** Why the model is asked again, as the person reads it. */
const hopResetText: Record<HopReset["reason"], string> = {
  ThoughtOnly: "it only thought",
  AnnounceOnly: "it only announced a tool",
  Incomplete: "its answer was cut off"
}

/** How much the renderer shows. */
export interface RenderOptions {
  /** Hide reasoning, including `<think>` blocks inline in the answer. */
  readonly noReasoning: boolean
  /** End each turn, and each tool hop that generated, with the summary line (context fill, tokens, speed). */
  readonly summary?: boolean
  /** Show prompt-evaluation progress in the spinner (default true); else a plain "thinking". */
  readonly promptProgress?: boolean
  /** The activity indicator, shared with whatever else writes to the terminal (the approval question). */
  readonly spinner?: Spinner
  /** The context size last reported, so prompt progress can show the fill before this turn reports its own. */
  readonly contextSize?: number
}

const percent = (part: number, whole: number) => `${Math.min(100, Math.round((part / whole) * 100))}%`

/** `ctx 12% · 340 tok · 45.2 tk/s`, from what the backend reported of the last model turn. */
export const summaryLine = (usage: Usage): string => {
  const parts: Array<string> = []
  if (usage.contextUsed !== undefined && usage.contextSize !== undefined && usage.contextSize > 0) {
    parts.push(`ctx ${percent(usage.contextUsed, usage.contextSize)}`)
  }
  parts.push(`${usage.promptTokens + usage.completionTokens} tok`)
  if (usage.tokensPerSecond !== undefined) parts.push(`${usage.tokensPerSecond.toFixed(1)} tk/s`)
  return parts.join(" · ")
}

/**
 * The spinner's text while a prompt is evaluated: `thinking 45% · ctx 12%`,
 * the share of the prompt read so far and how full the context is as it is
 * read (cached tokens included; the context part only when its size is known).
 */
export const progressLabel = (progress: PromptProgress, contextSize: number | undefined): string => {
  const parts = [progress.total > 0 ? `thinking ${percent(progress.processed, progress.total)}` : "thinking"]
  if (contextSize !== undefined && contextSize > 0) parts.push(`ctx ${percent(progress.processed, contextSize)}`)
  return parts.join(" · ")
}

/**
 * The log line a model turn's usage becomes:
 * `[prompt_eval] 812 tok (640 cached) · 950.0 tk/s eval · 42 generated · ctx 21% (860/4096) · 38.5 tk/s`.
 */
export const usageLogLine = (usage: Usage): string => {
  const parts = [`[prompt_eval] ${usage.promptTokens} tok${usage.cachedTokens === undefined ? "" : ` (${usage.cachedTokens} cached)`}`]
  if (usage.promptTokensPerSecond !== undefined) parts.push(`${usage.promptTokensPerSecond.toFixed(1)} tk/s eval`)
  parts.push(`${usage.completionTokens} generated`)
  if (usage.contextUsed !== undefined && usage.contextSize !== undefined && usage.contextSize > 0) {
    parts.push(`ctx ${percent(usage.contextUsed, usage.contextSize)} (${usage.contextUsed}/${usage.contextSize})`)
  }
  if (usage.tokensPerSecond !== undefined) parts.push(`${usage.tokensPerSecond.toFixed(1)} tk/s`)
  return parts.join(" · ")
}

/** Renders one turn's events (and the plan as it changes); owned by one turn. */
export class TurnRenderer {
  private readonly filter = new ReasoningFilter()
  private readonly spinner: Spinner
  /** The answer on stdout does not end with a newline yet. */
  private answerOpen = false
  /** The terminal's cursor is in the middle of a line (answer or reasoning). */
  private lineOpen = false
  private contextSize: number | undefined
  private usage: Usage | undefined
  /** The last model turn's usage is not summarized on screen yet. */
  private unsummarized = false

  constructor(private readonly options: RenderOptions) {
    this.spinner = options.spinner ?? new Spinner()
    this.contextSize = options.contextSize
  }

  /** What the backend reported of the turn's last model turn, once it has. */
  get lastUsage(): Usage | undefined {
    return this.usage
  }

  /** Starts the spinner: the turn has been sent and nothing has come back yet. */
  start(): Effect.Effect<void> {
    return Effect.sync(() => this.spin("thinking"))
  }

  /** Stops the spinner (the turn ended, however it ended). */
  stop(): Effect.Effect<void> {
    return Effect.sync(() => this.spinner.clear())
  }

  private spin(label: string) {
    // The spinner redraws its whole line: start it on a fresh one.
    if (this.lineOpen && this.spinner.enabled) {
      process.stderr.write("\n")
      this.lineOpen = false
    }
    this.spinner.show(label)
  }

  private stream(stream: NodeJS.WriteStream, text: string) {
    if (text === "") return Effect.void
    this.spinner.clear()
    this.lineOpen = !text.endsWith("\n")
    return write(stream, text)
  }

  /** A block of whole lines on stderr, on a line of its own. */
  private block(text: string) {
    this.spinner.clear()
    const lead = this.lineOpen ? "\n" : ""
    this.lineOpen = false
    return write(process.stderr, `${lead}${text}\n`)
  }

  /** The summary line of a model turn that generated something, once, between hops. */
  private hopSummary() {
    const usage = this.usage
    if (this.options.summary !== true || !this.unsummarized || usage === undefined) return Effect.void
    this.unsummarized = false
    return (usage.tokensPerSecond ?? 0) < 0.1 ? Effect.void : this.block(dim(summaryLine(usage)))
  }

  private answer(text: string) {
    const visible = this.options.noReasoning ? this.filter.push(text) : text
    if (visible !== "") this.answerOpen = !visible.endsWith("\n")
    return this.stream(process.stdout, visible)
  }

  /** Shows the plan as it now stands. */
  plan(snapshot: PlanSnapshot): Effect.Effect<void> {
    return Effect.suspend(() => this.block(renderPlan(snapshot, { color: process.stderr.isTTY === true })))
  }

  /** Shows one event (when the returned effect runs: the renderer's state moves with what is on screen). */
  event(event: AgentEvent): Effect.Effect<void> {
    return Effect.suspend(() => this.render(event))
  }

  private render(event: AgentEvent): Effect.Effect<void> {
    switch (event._tag) {
      case "TextDelta":
        return this.answer(event.text)
      case "ReasoningDelta":
        return this.options.noReasoning ? Effect.void : this.stream(process.stderr, dim(event.text))
      case "PromptProgress":
        return this.options.promptProgress === false ? Effect.void : Effect.sync(() => this.spin(progressLabel(event, this.contextSize)))
      case "ToolCallStarted":
        // The model turn is over and its calls begin: the summary of that hop, as at the end of a turn.
        return Effect.zipRight(this.hopSummary(), Effect.sync(() => this.spin(`running ${displayToolName(event.call.name)}`)))
      case "ToolCallFinished": {
        const mark = event.result.isError ? "✗" : "✓"
        const detail = event.result.isError ? `: ${event.result.content.split("\n")[0]?.slice(0, 120) ?? ""}` : ""
        return Effect.zipRight(this.block(dim(`${mark} ${displayToolName(event.call.name)}${detail}`)), Effect.sync(() => this.spin("thinking")))
      }
      case "Usage":
        this.usage = event
        this.unsummarized = true
        if (event.contextSize !== undefined) this.contextSize = event.contextSize
        return Effect.logDebug(usageLogLine(event))
      case "HopReset":
        return Effect.zipRight(
          this.block(dim(`(the model tries again: ${hopResetText[event.reason]})`)),
          Effect.sync(() => this.spin("thinking"))
        )
      case "TurnComplete": {
        const rest = this.options.noReasoning ? this.filter.end() : ""
        if (rest !== "") this.answerOpen = !rest.endsWith("\n")
        const close = this.answerOpen ? "\n" : ""
        this.answerOpen = false
        const warning = event.stopReason === "HopLimitReached" ? this.block(dim(`(stopped after ${event.hops} tool hops)`)) : Effect.void
        const summary = this.options.summary === true && this.usage !== undefined && this.unsummarized
          ? this.block(dim(summaryLine(this.usage)))
          : Effect.void
        this.unsummarized = false
        return Effect.all([this.stream(process.stdout, `${rest}${close}`), warning, summary], { discard: true })
      }
      default:
        return Effect.void
    }
  }
}

/**
 * Plays a turn through `renderer`, with the plan re-rendered whenever the
 * model changes it, and `changed` run after every message the turn appends
 * (to save the conversation).
 *
 * The plan is read before every event rather than followed on
 * `Plan.changes`: the plan tool's change is made before its
 * `ToolCallFinished`, so it is shown by then at the latest (above the tool's
 * `✓` line, the spinner kept), and none is lost when the turn ends. (Merged
 * with the events, a change could wait behind events the agent had already
 * buffered and then be dropped when the turn ended.) Changes made between
 * two events show as one.
 */
export const renderTurn = <E, R, R2>(
  events: Stream.Stream<AgentEvent, E, R>,
  renderer: TurnRenderer,
  changed: Effect.Effect<void, never, R2>
): Effect.Effect<void, E, R | R2 | Plan> =>
  Effect.flatMap(Plan, (plan) =>
    Effect.gen(function*() {
      let shown = yield* plan.current
      const showPlan = Effect.flatMap(plan.current, (now) => {
        if (now === shown) return Effect.void
        shown = now
        return renderer.plan(now)
      })
      yield* renderer.start()
      yield* Stream.runForEach(events, (event) =>
        Effect.zipRight(
          showPlan,
          Effect.zipRight(renderer.event(event), event._tag === "MessagesAppended" ? changed : Effect.void)
        ))
      yield* showPlan
    }).pipe(Effect.ensuring(renderer.stop())))

/** The approval question, `call 'docs.search({"query":"x"})'? [y/N] `. */
export const approvalQuestion = (request: ApprovalRequest): string => {
  const args = request.call.arguments.length > 80 ? `${request.call.arguments.slice(0, 77)}…` : request.call.arguments
  return `call '${request.displayName}(${args})'? [y/N] `
}

/** Anything but y/yes is no. */
export const approved = (answer: string): boolean => /^\s*y(es)?\s*$/i.test(answer)

/** Asks the approval question on the terminal (after clearing the spinner). */
export const askOnTerminal = (spinner: Spinner) => (request: ApprovalRequest): Effect.Effect<boolean> =>
  Effect.async<boolean>((resume) => {
    spinner.clear()
    const prompt = createInterface({ input: process.stdin, output: process.stderr, terminal: true })
    prompt.question(approvalQuestion(request), (answer) => {
      prompt.close()
      resume(Effect.succeed(approved(answer)))
    })
    return Effect.sync(() => prompt.close())
  })
