/** The empty state of a new chat. */
export const Welcome = ({ title, model }: { readonly title: string; readonly model: string | null }) => (
  <div class="welcome">
    <div class="welcome-mark" aria-hidden="true">{title.trim().charAt(0).toUpperCase()}</div>
    <h1 class="welcome-title">{title}</h1>
    <p class="welcome-hint">
      Ask anything.
      <br />
      <kbd>Enter</kbd> sends · <kbd>Shift</kbd>+<kbd>Enter</kbd> new line · <kbd>Esc</kbd> stops
    </p>
    {model !== null && <p class="welcome-model">{model}</p>}
  </div>
)
