/** One message of the conversation. */
import { copyText } from "../clipboard.js"
import { statusText } from "../format.js"
import type { AssistantMessage, Message } from "../types.js"
import { CopyIcon, RetryIcon } from "./icons.js"
import { Markdown } from "./Markdown.js"
import { Reasoning } from "./Reasoning.js"
import { ToolCall } from "./ToolCall.js"

const Reply = (
  { message, onRetry }: { readonly message: AssistantMessage; readonly onRetry: (() => void) | null }
) => {
  const streaming = message.state === "streaming"
  return (
    <article class="message assistant" data-testid="message" data-role="assistant" data-state={message.state} aria-busy={streaming}>
      {message.reasoning !== "" && (
        <Reasoning text={message.reasoning} streaming={streaming} answering={message.content !== ""} />
      )}
      {message.tools.length > 0 && (
        <div class="tools">
          {message.tools.map((row, index) => <ToolCall key={`${row.id}:${index}`} row={row} />)}
        </div>
      )}
      <Markdown text={message.content} streaming={streaming} />
      {message.error !== null && (
        <div class="error-box" role="alert">
          <span>{message.error}</span>
          {onRetry !== null && (
            <button type="button" class="text-button" onClick={onRetry} aria-label="Retry this answer">
              <RetryIcon /> Retry
            </button>
          )}
        </div>
      )}
      <div class="meta">
        <span class={`status status-${message.state}`} data-testid="status">{statusText(message)}</span>
        {!streaming && message.content !== "" && (
          <button
            type="button"
            class="icon-button small"
            aria-label="Copy answer"
            title="Copy answer"
            onClick={(event) => {
              const button = event.currentTarget
              void copyText(message.content).then((ok) => {
                button.classList.toggle("done", ok)
                window.setTimeout(() => button.classList.remove("done"), 1200)
              })
            }}
          >
            <CopyIcon />
          </button>
        )}
        {!streaming && message.error === null && onRetry !== null && (
          <button type="button" class="icon-button small" aria-label="Regenerate answer" title="Regenerate" onClick={onRetry}>
            <RetryIcon />
          </button>
        )}
      </div>
    </article>
  )
}

export const MessageView = (
  { message, onRetry }: { readonly message: Message; readonly onRetry: (() => void) | null }
) =>
  message.role === "user"
    ? (
      <article class="message user" data-testid="message" data-role="user">
        <div class="bubble">{message.content}</div>
      </article>
    )
    : <Reply message={message} onRetry={onRetry} />

