/** The scrolling message column; follows the stream while the reader is at the bottom. */
import { useLayoutEffect, useRef, useState } from "preact/hooks"
import type { Message } from "../types.js"
import { ArrowDownIcon } from "./icons.js"
import { MessageView } from "./Message.js"

const nearBottom = (element: HTMLElement): boolean => element.scrollHeight - element.scrollTop - element.clientHeight < 64

export const MessageList = ({ conversationId, messages, onRetry, follow }: {
  readonly conversationId: string | null
  readonly messages: ReadonlyArray<Message>
  /** Retries the reply with this id; offered on the last reply when idle. */
  readonly onRetry: ((messageId: string) => void) | null
  /** Bumped when the user sends: scroll to the bottom whatever the position. */
  readonly follow: number
}) => {
  const ref = useRef<HTMLDivElement>(null)
  const stick = useRef(true)
  const [away, setAway] = useState(false)

  // A new conversation or a new message of the user's: back to the bottom.
  useLayoutEffect(() => {
    stick.current = true
  }, [conversationId, follow])

  // After every render (children rendered their markdown first): keep following.
  useLayoutEffect(() => {
    const element = ref.current
    if (element !== null && stick.current) element.scrollTop = element.scrollHeight
  })

  const last = messages.at(-1)
  return (
    <div
      ref={ref}
      class="messages"
      data-testid="messages"
      aria-live="polite"
      aria-relevant="additions text"
      onScroll={(event) => {
        const bottom = nearBottom(event.currentTarget)
        stick.current = bottom
        if (away === bottom) setAway(!bottom)
      }}
    >
      <div class="column">
        {messages.map((message) => (
          <MessageView
            key={message.id}
            message={message}
            onRetry={onRetry !== null && message === last && message.role === "assistant" ? () => onRetry(message.id) : null}
          />
        ))}
      </div>
      {away && (
        <button
          type="button"
          class="to-bottom"
          aria-label="Scroll to the latest message"
          onClick={() => {
            const element = ref.current
            if (element === null) return
            stick.current = true
            element.scrollTo({ top: element.scrollHeight, behavior: "smooth" })
          }}
        >
          <ArrowDownIcon />
        </button>
      )}
    </div>
  )
}
