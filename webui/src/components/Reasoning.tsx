/** The collapsible reasoning of one reply: open while it streams, collapsed once the answer starts. */
import { useState } from "preact/hooks"

export const Reasoning = (
  { text, streaming, answering }: { readonly text: string; readonly streaming: boolean; readonly answering: boolean }
) => {
  const automatic = streaming && !answering
  // null: follow the automatic state; a boolean: the user toggled it.
  const [chosen, setChosen] = useState<boolean | null>(null)
  const open = chosen ?? automatic
  return (
    <details
      class="reasoning"
      data-testid="reasoning"
      open={open}
      onToggle={(event) => {
        const now = event.currentTarget.open
        if (now !== open) setChosen(now)
      }}
    >
      <summary>
        <span class={automatic ? "reasoning-label live" : "reasoning-label"}>{automatic ? "Thinking…" : "Reasoning"}</span>
      </summary>
      <div class="reasoning-text">{text}</div>
    </details>
  )
}
