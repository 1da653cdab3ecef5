/** Copies text; falls back to a hidden textarea where the Clipboard API is missing (plain http). */
export const copyText = async (text: string): Promise<boolean> => {
  try {
    if (window.isSecureContext && navigator.clipboard !== undefined) {
      await navigator.clipboard.writeText(text)
      return true
    }
  } catch {
    // fall through to the legacy path
  }
  const area = document.createElement("textarea")
  area.value = text
  area.setAttribute("readonly", "")
  area.className = "offscreen"
  document.body.appendChild(area)
  area.select()
  let ok = false
  try {
    ok = document.execCommand("copy")
  } catch {
    ok = false
  }
  area.remove()
  return ok
}

/** Shows "Copied" on a button for a moment. */
export const flashCopied = (button: HTMLElement, ok: boolean): void => {
  const label = button.dataset["label"] ?? button.textContent ?? ""
  button.dataset["label"] = label
  button.textContent = ok ? "Copied" : "Copy failed"
  button.classList.add("copied")
  window.setTimeout(() => {
    button.textContent = label
    button.classList.remove("copied")
  }, 1400)
}
