/** The message box: grows with its text, Enter sends, Shift+Enter breaks the line. */
import type { RefObject } from "preact"
import { useLayoutEffect } from "preact/hooks"
import { SendIcon, StopIcon } from "./icons.js"

export const Composer = ({ value, placeholder, generating, inputRef, onInput, onSend, onStop }: {
  readonly value: string
  readonly placeholder: string
  readonly generating: boolean
  readonly inputRef: RefObject<HTMLTextAreaElement | null>
  readonly onInput: (value: string) => void
  readonly onSend: () => void
  readonly onStop: () => void
}) => {
  const blank = value.trim() === ""

  useLayoutEffect(() => {
    const area = inputRef.current
    if (area === null) return
    area.style.height = "auto"
    area.style.height = `${area.scrollHeight}px` // CSS caps it at 40% of the viewport
  }, [value])

  return (
    <div class="composer">
      <textarea
        ref={inputRef}
        data-testid="composer"
        rows={1}
        value={value}
        placeholder={placeholder}
        aria-label={placeholder}
        enterkeyhint="send"
        onInput={(event) => onInput(event.currentTarget.value)}
        onKeyDown={(event) => {
          // keyCode 229: a key that an input method editor is handling (older Safari leaves isComposing false).
          if (event.key !== "Enter" || event.shiftKey || event.isComposing || event.keyCode === 229) return
          event.preventDefault()
          if (!generating && !blank) onSend()
        }}
      />
      {generating
        ? (
          <button type="button" class="send stop" data-testid="stop" aria-label="Stop generating" title="Stop (Esc)" onClick={onStop}>
            <StopIcon />
          </button>
        )
        : (
          <button type="button" class="send" data-testid="send" aria-label="Send message" title="Send (Enter)" disabled={blank} onClick={onSend}>
            <SendIcon />
          </button>
        )}
    </div>
  )
}
