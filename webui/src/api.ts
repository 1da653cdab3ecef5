/** The server's API: `GET /props` and the streamed `POST /v1/chat/completions`. */
import { createParser } from "eventsource-parser"
import { isRecord, num, parseJson, str } from "./json.js"
import { parseFrame, type StreamEvent } from "./stream.js"
import type { PresetName, ServerProps, WireMessage } from "./types.js"

export type ApiFailure =
  | { readonly kind: "unauthorized"; readonly message: string }
  | { readonly kind: "http"; readonly status: number; readonly message: string }
  | { readonly kind: "network"; readonly message: string }

const headers = (apiKey: string | null, json: boolean): Record<string, string> => ({
  ...(json ? { "Content-Type": "application/json" } : {}),
  Accept: json ? "text/event-stream" : "application/json",
  ...(apiKey === null ? {} : { Authorization: `Bearer ${apiKey}` })
})

/** The message of an error response, from its `{"error":{"message"}}` envelope when it has one. */
const errorMessage = async (response: Response): Promise<string> => {
  const text = await response.text().catch(() => "")
  const json = parseJson(text)
  const error = isRecord(json) ? json["error"] : undefined
  const message = isRecord(error) ? str(error["message"]) : str(error)
  if (message !== null && message.trim() !== "") return message
  return text.trim() !== "" && text.length < 300 ? text.trim() : `HTTP ${response.status} ${response.statusText}`.trim()
}

const failure = async (response: Response): Promise<ApiFailure> => {
  const message = await errorMessage(response)
  if (response.status === 401) return { kind: "unauthorized", message }
  if (response.status === 503) return { kind: "http", status: 503, message: "The server is busy, try again." }
  return { kind: "http", status: response.status, message }
}

const networkFailure = (error: unknown): ApiFailure => ({
  kind: "network",
  message: `Cannot reach the server${error instanceof Error && error.message !== "" ? ` (${error.message})` : ""}.`
})

export const readProps = (json: unknown): ServerProps => {
  const record = isRecord(json) ? json : {}
  const tools = record["tools"]
  return {
    model: str(record["model"]),
    nCtx: num(record["n_ctx"]),
    preset: str(record["preset"]),
    backend: str(record["backend"]),
    tools: Array.isArray(tools) ? tools.filter((tool): tool is string => typeof tool === "string") : []
  }
}

export const fetchProps = async (
  apiKey: string | null
): Promise<{ readonly ok: true; readonly props: ServerProps } | { readonly ok: false; readonly failure: ApiFailure }> => {
  try {
    const response = await fetch("/props", { headers: headers(apiKey, false), cache: "no-store" })
    if (!response.ok) return { ok: false, failure: await failure(response) }
    return { ok: true, props: readProps(parseJson(await response.text())) }
  } catch (error) {
    return { ok: false, failure: networkFailure(error) }
  }
}

export type ChatOutcome =
  | { readonly kind: "finished" }
  /** The stream ended without `[DONE]`: the connection dropped. */
  | { readonly kind: "cut" }
  | { readonly kind: "aborted" }
  | ApiFailure

const isAbort = (error: unknown, signal: AbortSignal): boolean =>
  signal.aborted || (error instanceof DOMException && error.name === "AbortError")

/**
 * Sends the conversation (sampled with `preset`) and streams the answer: every SSE frame becomes
 * events for `onEvent`. Resolves when the stream ends; never rejects.
 */
export const streamChat = async (
  messages: ReadonlyArray<WireMessage>,
  preset: PresetName,
  apiKey: string | null,
  signal: AbortSignal,
  onEvent: (event: StreamEvent) => void
): Promise<ChatOutcome> => {
  let response: Response
  try {
    response = await fetch("/v1/chat/completions", {
      method: "POST",
      headers: headers(apiKey, true),
      body: JSON.stringify({
        model: "easyai",
        messages,
        // The preset as its own field: an inline prefix in the text could take the user's first words.
        preset,
        stream: true,
        stream_options: { include_usage: true, easyai_events: true }
      }),
      signal,
      cache: "no-store"
    })
  } catch (error) {
    return isAbort(error, signal) ? { kind: "aborted" } : networkFailure(error)
  }
  if (!response.ok) return failure(response)
  if (response.body === null) return { kind: "network", message: "The server sent an empty response." }

  let done = false
  const parser = createParser({
    onEvent: (message) => {
      for (const event of parseFrame(message.event, message.data)) {
        if (event.type === "done") done = true
        onEvent(event)
      }
    }
  })
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  try {
    for (;;) {
      const chunk = await reader.read()
      if (chunk.done) break
      parser.feed(decoder.decode(chunk.value, { stream: true }))
      if (done) break
    }
  } catch (error) {
    return isAbort(error, signal) ? { kind: "aborted" } : done ? { kind: "finished" } : { kind: "cut" }
  } finally {
    reader.cancel().catch(() => undefined)
  }
  if (signal.aborted && !done) return { kind: "aborted" }
  return done ? { kind: "finished" } : { kind: "cut" }
}
