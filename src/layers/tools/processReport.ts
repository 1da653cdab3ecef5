/**
 * How a finished process is reported to the model: its output, then what
 * happened to it — the same words for every tool that runs one.
 *
 * @module
 */
import type { ProcessResult } from "../../services/Sandbox.js"

/** The output, a truncation note when bytes were dropped, and how the process ended. */
export const describeRun = (result: ProcessResult, options: { readonly timeoutMillis: number }): string => {
  const lines: Array<string> = []
  if (result.output !== "") lines.push(result.output.endsWith("\n") ? result.output.slice(0, -1) : result.output)
  if (result.droppedBytes > 0) {
    lines.push(`[output truncated: ${result.droppedBytes} more bytes were dropped]`)
  }
  if (result.timedOut) {
    lines.push(`[timed out after ${options.timeoutMillis} ms; the process and its children were stopped]`)
  } else if (result.exitCode !== undefined) {
    lines.push(`[exit code ${result.exitCode}]`)
  } else {
    lines.push(`[killed by ${result.signal ?? "a signal"}]`)
  }
  return lines.join("\n")
}
