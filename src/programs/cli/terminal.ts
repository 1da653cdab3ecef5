/**
 * How a turn looks in a terminal: the answer on stdout as it streams,
 * everything else (reasoning, tool indicators, warnings) on stderr, so
 * `easyai -p "…" > answer.txt` keeps only the answer.
 *
 * @module
 */
import { Effect } from "effect"
import { createInterface } from "node:readline"
import type { AgentEvent, Usage } from "../../domain/AgentEvent.js"
import { ReasoningFilter } from "../../domain/reasoningFilter.js"
import type { ApprovalRequest } from "../../layers/approval/ApprovalLive.js"

const dim = (text: string) => (process.stderr.isTTY ? `\u001b[2m${text}\u001b[0m` : text)

const write = (stream: NodeJS.WriteStream, text: string) =>
  text === "" ? Effect.void : Effect.async<void>((resume) => {
    stream.write(text, () => resume(Effect.void))
  })

/** How much the renderer shows. */
export interface RenderOptions {
  /** Hide reasoning, including `<think>` blocks inline in the answer. */
  readonly noReasoning: boolean
  /** End each turn with the summary line (context fill, tokens, speed). */
  readonly summary?: boolean
}

/** `ctx 12% · 340 tok · 45.2 tk/s`, from what the backend reported of the last model turn. */
export const summaryLine = (usage: Usage): string => {
  const parts: Array<string> = []
  if (usage.contextUsed !== undefined && usage.contextSize !== undefined && usage.contextSize > 0) {
    parts.push(`ctx ${Math.round((usage.contextUsed / usage.contextSize) * 100)}%`)
  }
  parts.push(`${usage.promptTokens + usage.completionTokens} tok`)
  if (usage.tokensPerSecond !== undefined) parts.push(`${usage.tokensPerSecond.toFixed(1)} tk/s`)
  return parts.join(" · ")
}

/** Renders one turn's events; owned by one turn. */
export class TurnRenderer {
  private readonly filter = new ReasoningFilter()
  private endsWithNewline = true
  private usage: Usage | undefined

  constructor(private readonly options: RenderOptions) {}

  private answer(text: string) {
    const visible = this.options.noReasoning ? this.filter.push(text) : text
    if (visible !== "") this.endsWithNewline = visible.endsWith("\n")
    return write(process.stdout, visible)
  }

  /** Shows one event. */
  event(event: AgentEvent): Effect.Effect<void> {
    switch (event._tag) {
      case "TextDelta":
        return this.answer(event.text)
      case "ReasoningDelta":
        return this.options.noReasoning ? Effect.void : write(process.stderr, dim(event.text))
      case "ToolCallFinished": {
        const mark = event.result.isError ? "✗" : "✓"
        const detail = event.result.isError ? `: ${event.result.content.split("\n")[0]?.slice(0, 120) ?? ""}` : ""
        return write(process.stderr, dim(`${mark} ${event.call.name}${detail}\n`))
      }
      case "Usage":
        this.usage = event
        return Effect.void
      case "HopReset":
        return write(process.stderr, dim(`(the model tries again: ${event.reason === "ThoughtOnly" ? "it only thought" : "it only announced a tool"})\n`))
      case "TurnComplete": {
        const rest = this.options.noReasoning ? this.filter.end() : ""
        if (rest !== "") this.endsWithNewline = rest.endsWith("\n")
        const warning = event.stopReason === "HopLimitReached"
          ? write(process.stderr, dim(`(stopped after ${event.hops} tool hops)\n`))
          : Effect.void
        const summary = this.options.summary === true && this.usage !== undefined ? write(process.stderr, dim(`${summaryLine(this.usage)}\n`)) : Effect.void
        return Effect.all([write(process.stdout, rest), this.endsWithNewline ? Effect.void : write(process.stdout, "\n"), warning, summary], {
          discard: true
        })
      }
      default:
        return Effect.void
    }
  }
}

/** `call 'docs.search({"query":"x"})'? [y/N]` on the terminal; anything but y/yes is no. */
export const askOnTerminal = (request: ApprovalRequest): Effect.Effect<boolean> =>
  Effect.async<boolean>((resume) => {
    const args = request.call.arguments.length > 80 ? `${request.call.arguments.slice(0, 77)}…` : request.call.arguments
    const prompt = createInterface({ input: process.stdin, output: process.stderr, terminal: true })
    prompt.question(`call '${request.displayName}(${args})'? [y/N] `, (answer) => {
      prompt.close()
      resume(Effect.succeed(/^\s*y(es)?\s*$/i.test(answer)))
    })
    return Effect.sync(() => prompt.close())
  })
