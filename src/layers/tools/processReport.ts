/**
 * How a finished process is reported to the model — the same words for
 * every tool that runs one (bash, evaluate, external tools).
 *
 * @module
 */
import type { ProcessResult } from "../../services/Sandbox.js"

/** The note that says output was cut, if it was. */
export const truncationNote = (result: ProcessResult): string | undefined =>
  result.droppedBytes > 0 ? `[output truncated: ${result.droppedBytes} more bytes were dropped]` : undefined

/** How the process ended, in a few words: "exit code 3", "timed out after 500 ms; …". */
export const ending = (result: ProcessResult, timeoutMillis: number): string =>
  result.timedOut
    ? `timed out after ${timeoutMillis} ms; the process and its children were stopped`
    : result.exitCode !== undefined
    ? `exit code ${result.exitCode}`
    : `killed by ${result.signal ?? "a signal"}`

/** `text`, then `line` on a line of its own. */
const appendLine = (text: string, line: string): string =>
  text === "" || text.endsWith("\n") ? `${text}${line}` : `${text}\n${line}`

/** The output exactly as written, then the truncation note when bytes were dropped. */
export const outputWithNote = (result: ProcessResult): string => {
  const note = truncationNote(result)
  return note === undefined ? result.output : appendLine(result.output, note)
}

/** The output, the truncation note and how the process ended, e.g. `…\n[exit code 0]`. */
export const describeRun = (result: ProcessResult, options: { readonly timeoutMillis: number }): string =>
  appendLine(outputWithNote(result), `[${ending(result, options.timeoutMillis)}]`)
