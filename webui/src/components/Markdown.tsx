/**
 * The rendered answer: sanitized markdown set as innerHTML whenever the text
 * changes (the app already batches stream updates to one per animation
 * frame), plus a copy button on each code block.
 */
import { useLayoutEffect, useRef } from "preact/hooks"
import { copyText, flashCopied } from "../clipboard.js"
import { renderMarkdown } from "../markdown.js"

const addCopyButtons = (root: HTMLElement): void => {
  for (const head of Array.from(root.querySelectorAll<HTMLElement>(".code-head"))) {
    const button = document.createElement("button")
    button.type = "button"
    button.className = "copy-code"
    button.textContent = "Copy"
    button.setAttribute("aria-label", "Copy code")
    head.appendChild(button)
  }
}

const onClick = (event: MouseEvent): void => {
  const target = event.target
  if (!(target instanceof Element)) return
  const button = target.closest<HTMLButtonElement>("button.copy-code")
  const code = button?.closest(".code-block")?.querySelector("code")
  if (button === null || button === undefined || code === null || code === undefined) return
  void copyText(code.textContent ?? "").then((ok) => flashCopied(button, ok))
}

export const Markdown = ({ text, streaming }: { readonly text: string; readonly streaming: boolean }) => {
  const ref = useRef<HTMLDivElement>(null)
  const rendered = useRef<string | null>(null)
  useLayoutEffect(() => {
    const element = ref.current
    if (element === null || rendered.current === text) return
    rendered.current = text
    element.innerHTML = renderMarkdown(text)
    addCopyButtons(element)
  }, [text])
  return <div ref={ref} class={streaming ? "markdown streaming" : "markdown"} data-testid="answer" onClick={onClick} />
}
