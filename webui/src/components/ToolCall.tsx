/** One server-side tool call: name, arguments, spinner → ✓/✗ with duration, the result on demand. */
import { duration } from "../format.js"
import type { ToolRow } from "../types.js"

const shortArguments = (text: string, max = 140): string => {
  const line = text.replace(/\s+/g, " ").trim()
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`
}

export const ToolCall = ({ row }: { readonly row: ToolRow }) => {
  const args = shortArguments(row.arguments)
  return (
    <div class={`tool tool-${row.state}`} data-testid="tool" data-state={row.state} data-tool={row.name}>
      <div class="tool-line">
        <span class="tool-icon">
          {row.state === "running"
            ? <span class="spinner" role="status" aria-label="running" />
            : <span aria-label={row.state === "done" ? "succeeded" : "failed"}>{row.state === "done" ? "✓" : "✗"}</span>}
        </span>
        <span class="tool-name">{row.name}</span>
        {args !== "" && <code class="tool-args" title={row.arguments}>{args}</code>}
        {row.durationMs !== null && <span class="tool-time">{duration(row.durationMs)}</span>}
      </div>
      {row.result !== null && (
        <details class="tool-result">
          <summary>{row.state === "error" ? "Error" : "Result"}{row.truncated ? " (truncated)" : ""}</summary>
          <pre>{row.result === "" ? "(empty)" : row.result}</pre>
        </details>
      )}
    </div>
  )
}
