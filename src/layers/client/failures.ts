/**
 * Translating what went wrong on the wire into the chat stream's typed
 * errors, once, at the client's edge: 401/403 say the key was refused, 429
 * is `RateLimited`, a context-length complaint is `ContextOverflow`, and a
 * server unreachable after every retry is `Transport`.
 *
 * @module
 */
import { Either, Schema } from "effect"
import { type ChatModelError, ContextOverflow, ModelError } from "../../domain/errors.js"
import type { HttpStatusError, TransportError } from "../../domain/httpErrors.js"
import { ErrorBody, type WireError } from "../../domain/openai/ChatCompletions.js"

/** The longest server message quoted in an error. */
const maxQuoted = 500

const quote = (text: string): string => {
  const trimmed = text.trim()
  return trimmed.length > maxQuoted ? `${trimmed.slice(0, maxQuoted)}…` : trimmed
}

const decodeErrorBody = Schema.decodeUnknownEither(Schema.parseJson(ErrorBody))

/** The error a status body carries, when it is JSON in a known shape; else its text. */
export const bodyError = (body: string): WireError => {
  const decoded = decodeErrorBody(body)
  if (Either.isLeft(decoded)) return body
  const { error, message } = decoded.right
  if (error !== undefined && error !== null) return error
  return message ?? body
}

const messageOf = (error: WireError): string => (typeof error === "string" ? error : error.message ?? "")

/** The first whole number after `phrase` (case-insensitive) in `text`, within a few characters. */
const numberAfter = (text: string, phrase: string): number | undefined => {
  const at = text.toLowerCase().indexOf(phrase)
  if (at < 0) return undefined
  let i = at + phrase.length
  const limit = i + 12
  while (i < text.length && i < limit && (text.charAt(i) < "0" || text.charAt(i) > "9")) i++
  let digits = ""
  while (i < text.length && text.charAt(i) >= "0" && text.charAt(i) <= "9") digits += text.charAt(i++)
  return digits === "" ? undefined : Number(digits)
}

const contextMarkers = ["exceed", "maximum context", "too long", "too large", "context length", "context window"]

/**
 * A context-length complaint as `ContextOverflow`: llama.cpp's
 * `exceed_context_size_error` (with `n_prompt_tokens`/`n_ctx`), OpenAI's
 * `context_length_exceeded`, or a message that says so. Token counts the
 * server did not give are 0.
 */
export const contextOverflow = (error: WireError): ContextOverflow | undefined => {
  const message = messageOf(error)
  const lower = message.toLowerCase()
  const flagged = typeof error !== "string" &&
    (error.type === "exceed_context_size_error" || error.code === "context_length_exceeded")
  const said = lower.includes("context") && contextMarkers.some((marker) => lower.includes(marker))
  if (!flagged && !said) return undefined
  const fields = typeof error === "string" ? undefined : error
  const contextSize = fields?.n_ctx ?? numberAfter(message, "context length is") ?? numberAfter(message, "context size") ?? 0
  const promptTokens = fields?.n_prompt_tokens ?? numberAfter(message, "resulted in") ??
    numberAfter(message, "you requested") ?? 0
  return new ContextOverflow({ promptTokens, contextSize })
}

/** An error the server reported inside a 2xx stream (a `data: {"error": …}` chunk). */
export const serverFailure = (error: WireError, status: number | undefined): ChatModelError =>
  contextOverflow(error) ??
    new ModelError({
      reason: "BadResponse",
      detail: `the server reported an error${status === undefined ? " mid-stream" : ` (HTTP ${status})`}: ${
        quote(messageOf(error)) || "no message"
      }`
    })

/** What the chat stream knows when a request failed before its response started. */
export interface FailureContext {
  /** How many attempts were made. */
  readonly attempts: number
  /** Whether an API key was sent. */
  readonly sentKey: boolean
}

const attemptsText = (attempts: number): string => (attempts > 1 ? ` (after ${attempts} attempts)` : "")

/** A status outside 2xx as the chat stream's error. */
export const statusFailure = (error: HttpStatusError, context: FailureContext): ChatModelError => {
  const wire = bodyError(error.body)
  const said = quote(messageOf(wire))
  const suffix = said === "" ? "" : `: ${said}`
  const { status } = error
  if (status === 401 || status === 403) {
    return new ModelError({
      reason: "Unavailable",
      detail: context.sentKey
        ? `the server refused the API key (HTTP ${status})${suffix}`
        : `the server requires an API key (HTTP ${status}): set apiKey or EASYAI_API_KEY${suffix}`
    })
  }
  if (status === 429) return new ModelError({ reason: "RateLimited", detail: `the server is rate-limiting requests (HTTP 429)${suffix}` })
  if (status === 400 || status === 413) {
    const overflow = contextOverflow(wire)
    if (overflow !== undefined) return overflow
  }
  if (status === 404) {
    return new ModelError({
      reason: "BadResponse",
      detail: `${error.url} was not found (HTTP 404): check the base URL and the model name${suffix}`
    })
  }
  if (status >= 500) {
    return new ModelError({ reason: "Unavailable", detail: `the server failed (HTTP ${status})${attemptsText(context.attempts)}${suffix}` })
  }
  return new ModelError({ reason: "BadResponse", detail: `the server rejected the request (HTTP ${status})${suffix}` })
}

/** A transport failure as the chat stream's error. */
export const transportFailure = (error: TransportError, context: FailureContext): ModelError => {
  switch (error.reason) {
    case "InvalidRequest":
      return new ModelError({ reason: "Unavailable", detail: `the request cannot be sent: ${error.detail}`, cause: error })
    case "Cut":
      return new ModelError({ reason: "Transport", detail: error.detail, cause: error })
    case "Unreachable":
    case "Timeout":
      return new ModelError({
        reason: "Transport",
        detail: `${error.url}: ${error.detail}${attemptsText(context.attempts)}`,
        cause: error
      })
  }
}
