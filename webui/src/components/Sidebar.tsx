/** Conversations: new chat, the list (newest first), delete; the API key and server info at the bottom. */
import { useEffect, useRef } from "preact/hooks"
import type { Conversation, ServerProps } from "../types.js"
import { CloseIcon, KeyIcon, PlusIcon, TrashIcon } from "./icons.js"

export const Sidebar = (props: {
  readonly open: boolean
  readonly conversations: ReadonlyArray<Conversation>
  readonly activeId: string | null
  readonly busyId: string | null
  readonly server: ServerProps | null
  readonly hasKey: boolean
  readonly onNew: () => void
  readonly onSelect: (id: string) => void
  readonly onDelete: (conversation: Conversation) => void
  readonly onKey: () => void
  readonly onClose: () => void
}) => {
  const { server } = props
  const aside = useRef<HTMLElement>(null)
  const newChat = useRef<HTMLButtonElement>(null)
  const wasOpen = useRef(props.open)
  // The phone drawer takes the focus when it opens and gives it back to the menu button when it
  // closes (the desktop sidebar is always "closed", so nothing moves there).
  useEffect(() => {
    if (props.open) newChat.current?.focus()
    else if (wasOpen.current && aside.current?.contains(document.activeElement) === true) {
      document.querySelector<HTMLButtonElement>(".header .menu")?.focus()
    }
    wasOpen.current = props.open
  }, [props.open])
  return (
    <aside ref={aside} id="sidebar" class={props.open ? "sidebar open" : "sidebar"} aria-label="Conversations">
      <div class="sidebar-top">
        <button ref={newChat} type="button" class="new-chat" data-testid="new-chat" aria-label="New chat" onClick={props.onNew}>
          <PlusIcon />
          <span>New chat</span>
        </button>
        <button type="button" class="icon-button drawer-close" aria-label="Close the conversation list" onClick={props.onClose}>
          <CloseIcon />
        </button>
      </div>
      <nav class="conversation-scroll" aria-label="Conversation history">
        {props.conversations.length === 0 && <p class="empty-list">No conversations yet.</p>}
        <ul class="conversations" data-testid="conversations">
          {props.conversations.map((conversation) => {
            const active = conversation.id === props.activeId
            return (
              <li key={conversation.id}>
                <div
                  class={active ? "conversation active" : "conversation"}
                  data-testid="conversation"
                  aria-current={active ? "true" : undefined}
                >
                  <button
                    type="button"
                    class="conversation-open"
                    title={conversation.title}
                    onClick={() => props.onSelect(conversation.id)}
                  >
                    {conversation.id === props.busyId && <span class="busy-dot" aria-label="answering" />}
                    <span class="conversation-title">{conversation.title}</span>
                  </button>
                  <button
                    type="button"
                    class="icon-button conversation-delete"
                    data-testid="delete-conversation"
                    aria-label={`Delete conversation: ${conversation.title}`}
                    title="Delete"
                    onClick={() => props.onDelete(conversation)}
                  >
                    <TrashIcon />
                  </button>
                </div>
              </li>
            )
          })}
        </ul>
      </nav>
      <div class="sidebar-bottom">
        <button
          type="button"
          class="key-button"
          aria-label={props.hasKey ? "Change or forget the API key" : "Set an API key"}
          onClick={props.onKey}
        >
          <KeyIcon />
          <span>API key</span>
          <span class={props.hasKey ? "key-state set" : "key-state"}>{props.hasKey ? "set" : "none"}</span>
        </button>
        {server !== null && (
          <p class="server-info">
            {[server.model, server.backend, server.tools.length > 0 ? `${server.tools.length} tool${server.tools.length === 1 ? "" : "s"}` : null]
              .filter((part) => part !== null)
              .join(" · ")}
          </p>
        )}
      </div>
    </aside>
  )
}
