/** The modal that asks for the server's API key (a native <dialog>: focus trap and Esc for free). */
import { useEffect, useRef, useState } from "preact/hooks"

export const ApiKeyDialog = ({ required, retrying, hasKey, onSubmit, onForget, onCancel }: {
  /** True when the server just answered 401. */
  readonly required: boolean
  /** True when a failed reply is retried once the key is saved. */
  readonly retrying: boolean
  readonly hasKey: boolean
  readonly onSubmit: (key: string) => void
  readonly onForget: () => void
  readonly onCancel: () => void
}) => {
  const ref = useRef<HTMLDialogElement>(null)
  const [value, setValue] = useState("")

  useEffect(() => {
    const dialog = ref.current
    if (dialog !== null && !dialog.open) dialog.showModal()
    return () => {
      if (dialog?.open === true) dialog.close()
    }
  }, [])

  const key = value.trim()
  return (
    <dialog
      ref={ref}
      class="dialog"
      data-testid="api-key-dialog"
      aria-labelledby="api-key-title"
      aria-describedby="api-key-text"
      onCancel={(event) => {
        event.preventDefault()
        onCancel()
      }}
      onClick={(event) => {
        if (event.target === event.currentTarget) onCancel() // a click on the backdrop
      }}
    >
      <form
        class="dialog-body"
        onSubmit={(event) => {
          event.preventDefault()
          if (key !== "") onSubmit(key)
        }}
      >
        <h2 id="api-key-title">API key</h2>
        <p id="api-key-text">
          {required ? "This server needs an API key. " : ""}
          The key is kept in this browser's local storage and sent as a bearer token.
        </p>
        <input
          type="password"
          data-testid="api-key-input"
          aria-label="API key"
          placeholder={hasKey ? "Enter a new key" : "Paste the key"}
          autocomplete="off"
          spellcheck={false}
          autofocus
          value={value}
          onInput={(event) => setValue(event.currentTarget.value)}
        />
        <div class="dialog-actions">
          {hasKey && (
            <button type="button" class="text-button danger" onClick={onForget}>
              Forget key
            </button>
          )}
          <span class="spacer" />
          <button type="button" class="button" onClick={onCancel}>Cancel</button>
          <button type="submit" class="button primary" data-testid="api-key-submit" disabled={key === ""}>
            {retrying ? "Save and retry" : "Save"}
          </button>
        </div>
      </form>
    </dialog>
  )
}
