/**
 * `CMD:` lines in the hybrid shell: a line of the model's answer that
 * starts with `CMD:` is a command it suggests. Each one is offered to run,
 * through the same approval gate as the model's `bash` calls (asked on the
 * terminal unless `--auto-approve bash` or `--yes`), runs in `$SHELL` on the
 * terminal, and what it printed can be handed back to the conversation.
 *
 * @module
 */
import { Effect, Option } from "effect"
import type { Interface } from "node:readline"
import { newToolCallId, ToolCall } from "../../domain/ToolCall.js"
import { Approval } from "../../services/Approval.js"
import { runCapturing } from "./shell.js"
import { approved } from "./terminal.js"

/** What the hybrid shell tells the model about `CMD:` lines (appended to the system prompt). */
export const cmdLinesRule =
  "You are in the user's hybrid shell. To suggest a shell command, put it on a line of its own starting with " +
  "`CMD:`, e.g. `CMD: df -h`. The user is asked before it runs and may send you its output."

/** What a `CMD:` command's output handed back is capped at, in bytes. */
export const handBackCap = 16 * 1024

/** The commands of `CMD:` lines in `text`, in order: the rest of each line, without surrounding backticks. */
export const commandLines = (text: string): ReadonlyArray<string> =>
  text.split("\n").flatMap((line) => {
    const match = /^\s*CMD:\s*(.*)$/.exec(line)
    const command = (match?.[1] ?? "").trim().replace(/^`+|`+$/g, "").trim()
    return command === "" ? [] : [command]
  })

/** The message that hands a command's output back to the model. */
export const handBackMessage = (command: string, status: number, output: string, truncated: boolean): string =>
  [
    `I ran \`${command}\` (exit status ${status}). Its output${truncated ? ` (the first ${handBackCap} bytes)` : ""}:`,
    "```",
    output.trimEnd(),
    "```"
  ].join("\n")

const question = (editor: Interface, text: string) =>
  Effect.async<boolean>((resume) => {
    editor.question(text, (answer) => resume(Effect.succeed(approved(answer))))
  })

/**
 * Offers each `CMD:` line of `answer`: the gate decides (or asks), the
 * command runs on the terminal, and the person says whether its output goes
 * back to the model. The messages to send the model next, in order.
 */
export const offerCommands = (answer: string, editor: Interface, say: (text: string) => Effect.Effect<void>) =>
  Effect.gen(function*() {
    const gate = yield* Approval
    const handBack: Array<string> = []
    for (const command of commandLines(answer)) {
      // The gate sees the command as the bash call it amounts to: one policy for both.
      const call = new ToolCall({ id: newToolCallId(), name: "bash", arguments: JSON.stringify({ command }) })
      const decision = yield* gate.check(call)
      if (decision._tag === "Denied") {
        yield* say(`(not run: ${command})`)
        continue
      }
      const ran = yield* runCapturing(command, editor, handBackCap)
      if (yield* question(editor, `hand the output of '${command}' to the model? [y/N] `)) {
        handBack.push(handBackMessage(command, ran.status, ran.output, ran.truncated))
      }
    }
    return Option.some(handBack).pipe(Option.filter((messages) => messages.length > 0))
  })
