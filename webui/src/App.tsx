/**
 * The chat application: owns the stored conversations, the server props, the
 * API key, the preset and the one request in flight.
 */
import { useCallback, useEffect, useRef, useState } from "preact/hooks"
import { fetchProps, streamChat } from "./api.js"
import { ApiKeyDialog } from "./components/ApiKeyDialog.js"
import { Composer } from "./components/Composer.js"
import { Header } from "./components/Header.js"
import { MessageList } from "./components/MessageList.js"
import { Sidebar } from "./components/Sidebar.js"
import { StatsBar } from "./components/StatsBar.js"
import { Welcome } from "./components/Welcome.js"
import type { PageConfig } from "./config.js"
import {
  activeConversation,
  appendMessages,
  newId,
  removeConversation,
  selectConversation,
  sortedConversations,
  updateReply,
  wireMessages
} from "./conversations.js"
import { contextFill, lastTimedReply, speedText } from "./format.js"
import {
  conversationsKey,
  loadApiKey,
  loadPreset,
  loadStore,
  saveApiKey,
  savePreset,
  saveStore
} from "./storage.js"
import { emptyReply, fold, settle, type StreamEvent } from "./stream.js"
import type { AssistantMessage, PresetName, ServerProps, Store, UserMessage, WireMessage } from "./types.js"

/** The request in flight. */
interface Generation {
  readonly conversationId: string
  readonly messageId: string
  readonly controller: AbortController
}

/** Why the key dialog is open, and the reply to retry once a key is given. */
interface KeyRequest {
  readonly required: boolean
  readonly retry: { readonly conversationId: string; readonly messageId: string } | null
}

const saveEveryMs = 500

/** Calls `flush` once per animation frame (or every 200 ms while the tab is hidden and frames stop). */
const frameScheduler = (flush: () => void) => {
  let pending = false
  const run = () => {
    if (!pending) return
    pending = false
    flush()
  }
  return () => {
    if (pending) return
    pending = true
    if (document.visibilityState === "hidden") window.setTimeout(run, 200)
    else window.requestAnimationFrame(run)
  }
}

export const App = ({ config }: { readonly config: PageConfig }) => {
  const [store, setStore] = useState<Store>(loadStore)
  const [server, setServer] = useState<ServerProps | null>(null)
  const [offline, setOffline] = useState(false)
  const [apiKey, setApiKey] = useState<string | null>(loadApiKey)
  const [preset, setPreset] = useState<PresetName>(loadPreset)
  const [generation, setGeneration] = useState<Generation | null>(null)
  const [keyRequest, setKeyRequest] = useState<KeyRequest | null>(null)
  const [drawerOpen, setDrawerOpen] = useState(false)
  const [draft, setDraft] = useState("")
  const [follow, setFollow] = useState(0)
  const composer = useRef<HTMLTextAreaElement>(null)

  // Latest values for callbacks that outlive a render (the stream, timers, listeners).
  const latest = useRef({ store, apiKey, preset, server, generation, keyRequest })
  latest.current = { store, apiKey, preset, server, generation, keyRequest }

  const focusComposer = useCallback(() => {
    window.setTimeout(() => composer.current?.focus(), 0)
  }, [])

  // ---- persistence: immediately when idle, at most every 500 ms while a reply streams
  const saveTimer = useRef<number | null>(null)
  useEffect(() => {
    if (generation === null) {
      if (saveTimer.current !== null) window.clearTimeout(saveTimer.current)
      saveTimer.current = null
      saveStore(store)
      return
    }
    if (saveTimer.current !== null) return
    saveTimer.current = window.setTimeout(() => {
      saveTimer.current = null
      saveStore(latest.current.store)
    }, saveEveryMs)
  }, [store, generation])

  useEffect(() => {
    const save = () => saveStore(latest.current.store)
    // Another tab changed the conversations: take them, unless this tab is streaming.
    const onStorage = (event: StorageEvent) => {
      if (event.key !== conversationsKey || latest.current.generation !== null) return
      const theirs = loadStore()
      setStore((mine) => ({
        conversations: theirs.conversations,
        activeId: theirs.conversations.some((item) => item.id === mine.activeId) ? mine.activeId : null
      }))
    }
    window.addEventListener("pagehide", save)
    window.addEventListener("storage", onStorage)
    return () => {
      window.removeEventListener("pagehide", save)
      window.removeEventListener("storage", onStorage)
    }
  }, [])

  // ---- server props (model, context size, default preset); a 401 asks for the key
  useEffect(() => {
    let current = true
    void fetchProps(apiKey).then((result) => {
      if (!current) return
      if (result.ok) {
        setServer(result.props)
        setOffline(false)
      } else if (result.failure.kind === "unauthorized") {
        setKeyRequest((open) => open ?? { required: true, retry: null })
      } else if (result.failure.kind === "network") {
        setOffline(true)
      }
    })
    return () => {
      current = false
    }
  }, [apiKey])

  // ---- the request
  const run = useCallback(async (conversationId: string, messageId: string, wire: ReadonlyArray<WireMessage>) => {
    const controller = new AbortController()
    const started = performance.now()
    const next: Generation = { conversationId, messageId, controller }
    latest.current.generation = next
    setGeneration(next)

    const apply = (update: (reply: AssistantMessage) => AssistantMessage) =>
      setStore((current) => updateReply(current, conversationId, messageId, update))
    let buffered: Array<StreamEvent> = []
    const flush = () => {
      if (buffered.length === 0) return
      const events = buffered
      buffered = []
      apply((reply) => events.reduce(fold, reply))
    }
    const schedule = frameScheduler(flush)

    const outcome = await streamChat(wire, latest.current.preset, latest.current.apiKey, controller.signal, (event) => {
      buffered.push(event)
      schedule()
    })
    flush()
    const elapsed = performance.now() - started
    switch (outcome.kind) {
      case "finished":
        apply((reply) => settle(reply, "done", elapsed))
        break
      case "aborted":
        apply((reply) => settle(reply, "stopped", elapsed))
        break
      case "cut":
        // Without "[DONE]": complete if the finish chunk arrived, else the answer is missing its end.
        apply((reply) =>
          reply.finishReason !== null
            ? settle(reply, "done", elapsed)
            : settle(reply, "error", elapsed, "The connection closed before the answer was complete.")
        )
        break
      case "unauthorized":
        apply((reply) => settle(reply, "error", elapsed, "This server needs an API key."))
        setKeyRequest({ required: true, retry: { conversationId, messageId } })
        break
      case "http":
      case "network":
        apply((reply) => settle(reply, "error", elapsed, outcome.message))
        break
    }
    latest.current.generation = null
    setGeneration(null)
  }, [])

  const stop = useCallback(() => {
    latest.current.generation?.controller.abort()
    focusComposer()
  }, [focusComposer])

  const send = useCallback(() => {
    const text = draft.trim()
    const { store: current, generation: busy } = latest.current
    if (text === "" || busy !== null) return
    const now = Date.now()
    const conversation = activeConversation(current)
    const conversationId = conversation?.id ?? newId()
    const user: UserMessage = { id: newId(), role: "user", content: text, createdAt: now }
    const reply = emptyReply(newId(), now)
    const history = [...(conversation?.messages ?? []), user, reply]
    setStore((state) => appendMessages(state, conversationId, [user, reply], now))
    setDraft("")
    setFollow((n) => n + 1)
    focusComposer()
    void run(conversationId, reply.id, wireMessages(history, reply.id))
  }, [draft, run, focusComposer])

  const retry = useCallback((conversationId: string, messageId: string) => {
    const { store: current, generation: busy } = latest.current
    if (busy !== null) return
    const conversation = current.conversations.find((item) => item.id === conversationId)
    if (conversation === undefined || !conversation.messages.some((message) => message.id === messageId)) return
    const now = Date.now()
    setStore((state) => updateReply(state, conversationId, messageId, () => emptyReply(messageId, now)))
    setFollow((n) => n + 1)
    void run(conversationId, messageId, wireMessages(conversation.messages, messageId))
  }, [run])

  // ---- keyboard: Esc stops a reply wherever the focus is, or closes the drawer
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape" || event.defaultPrevented || latest.current.keyRequest !== null) return
      if (latest.current.generation !== null) {
        event.preventDefault()
        stop()
      } else if (drawerOpen) {
        setDrawerOpen(false)
      }
    }
    document.addEventListener("keydown", onKey)
    return () => document.removeEventListener("keydown", onKey)
  }, [stop, drawerOpen])

  // ---- document title
  const active = activeConversation(store)
  useEffect(() => {
    document.title = active === null ? config.title : `${active.title} · ${config.title}`
  }, [active?.title, config.title])

  // ---- actions
  const newChat = () => {
    setStore((state) => selectConversation(state, null))
    setDrawerOpen(false)
    focusComposer()
  }
  const select = (id: string) => {
    setStore((state) => selectConversation(state, id))
    setDrawerOpen(false)
  }
  const remove = (id: string, title: string) => {
    if (!window.confirm(`Delete the conversation "${title}"?`)) return
    if (latest.current.generation?.conversationId === id) latest.current.generation.controller.abort()
    setStore((state) => removeConversation(state, id))
  }
  const choosePreset = (value: PresetName) => {
    setPreset(value)
    savePreset(value)
  }
  const submitKey = (key: string) => {
    const request = keyRequest
    saveApiKey(key)
    setApiKey(key)
    latest.current.apiKey = key
    setKeyRequest(null)
    if (request?.retry != null) retry(request.retry.conversationId, request.retry.messageId)
    focusComposer()
  }
  const forgetKey = () => {
    saveApiKey(null)
    setApiKey(null)
    latest.current.apiKey = null
    setKeyRequest(null)
    focusComposer()
  }
  const closeKeyDialog = () => {
    setKeyRequest(null)
    focusComposer()
  }

  const timed = lastTimedReply(active)
  const busy = generation !== null
  return (
    <div class={drawerOpen ? "app drawer-open" : "app"}>
      <Sidebar
        open={drawerOpen}
        conversations={sortedConversations(store)}
        activeId={store.activeId}
        busyId={generation?.conversationId ?? null}
        server={server}
        hasKey={apiKey !== null}
        onNew={newChat}
        onSelect={select}
        onDelete={(conversation) => remove(conversation.id, conversation.title)}
        onKey={() => {
          setKeyRequest({ required: false, retry: null })
          setDrawerOpen(false)
        }}
        onClose={() => setDrawerOpen(false)}
      />
      <div class="scrim" aria-hidden="true" onClick={() => setDrawerOpen(false)} />
      <main class="main">
        <Header
          title={config.title}
          model={server?.model ?? null}
          offline={offline}
          preset={preset}
          serverPreset={server?.preset ?? null}
          drawerOpen={drawerOpen}
          onMenu={() => setDrawerOpen((open) => !open)}
          onPreset={choosePreset}
        />
        {active === null || active.messages.length === 0
          ? (
            <div class="messages empty" data-testid="messages" aria-live="polite">
              <Welcome title={config.title} model={server?.model ?? null} />
            </div>
          )
          : (
            <MessageList
              conversationId={active.id}
              messages={active.messages}
              follow={follow}
              onRetry={busy ? null : (messageId) => retry(active.id, messageId)}
            />
          )}
        <div class="bottom">
          <div class="column">
            <StatsBar fill={contextFill(timed?.timings ?? null, server?.nCtx ?? null)} speed={speedText(timed)} />
            <Composer
              value={draft}
              placeholder={config.placeholder}
              generating={busy}
              inputRef={composer}
              onInput={setDraft}
              onSend={send}
              onStop={stop}
            />
          </div>
        </div>
      </main>
      {keyRequest !== null && (
        <ApiKeyDialog
          required={keyRequest.required}
          retrying={keyRequest.retry !== null}
          hasKey={apiKey !== null}
          onSubmit={submitKey}
          onForget={forgetKey}
          onCancel={closeKeyDialog}
        />
      )}
    </div>
  )
}
