/**
 * A forward-only scanner over streamed model text that separates reasoning
 * and recovers tool calls written as raw markup by models whose chat
 * template gives them no native tool-call channel:
 *
 * - `<think>…</think>` → reasoning
 * - `<tool_call>{"name": …, "arguments": {…}}</tool_call>`
 * - `<function=NAME><parameter=KEY>VALUE</parameter>…</function>`
 * - `🔧 name({"key": "value"})`
 *
 * Text that could still become a marker is held back until the next chunk
 * decides; markup that turns out malformed is given back as text, so nothing
 * the model wrote is lost. No regular expressions run over model output.
 *
 * @module
 */
import { Either } from "effect"
import { isObject, parseJson } from "../../domain/json.js"

/** What the scanner recognized in the text. */
export type Piece =
  | { readonly _tag: "Text"; readonly text: string }
  | { readonly _tag: "Reasoning"; readonly text: string }
  | { readonly _tag: "Call"; readonly name: string; readonly arguments: string }

type State = "Text" | "Think" | "ToolCall" | "Function" | "Emoji"

const openers: ReadonlyArray<readonly [string, State]> = [
  ["<think>", "Think"],
  ["<tool_call>", "ToolCall"],
  ["<function=", "Function"],
  ["🔧", "Emoji"]
]

const closers: Readonly<Record<Exclude<State, "Text" | "Emoji">, string>> = {
  Think: "</think>",
  ToolCall: "</tool_call>",
  Function: "</function>"
}

/** Length of the longest suffix of `text` that is a proper prefix of `marker`. */
const heldSuffix = (text: string, marker: string): number => {
  for (let length = Math.min(text.length, marker.length - 1); length > 0; length--) {
    if (marker.startsWith(text.slice(text.length - length))) return length
  }
  return 0
}

/** The JSON `text` holds, or `undefined` when it is not JSON. */
const jsonOrUndefined = (text: string): unknown => Either.getOrUndefined(parseJson(text))

const isNameChar = (char: string): boolean =>
  (char >= "a" && char <= "z") || (char >= "A" && char <= "Z") || (char >= "0" && char <= "9") || char === "_" ||
  char === "-" || char === "."

/** `{"name": "x", "arguments": {...}}` (arguments may also be a JSON string). */
const parseToolCallJson = (body: string): Piece | undefined => {
  const value = jsonOrUndefined(body.trim())
  if (!isObject(value) || typeof value["name"] !== "string") return undefined
  const args = value["arguments"] ?? value["parameters"] ?? {}
  const text = typeof args === "string" ? args : JSON.stringify(args)
  return { _tag: "Call", name: value["name"], arguments: text }
}

/** `NAME><parameter=K>V</parameter>…` (the `<function=` opener already consumed). */
const parseFunctionMarkup = (body: string): Piece | undefined => {
  const nameEnd = body.indexOf(">")
  if (nameEnd <= 0) return undefined
  const name = body.slice(0, nameEnd).trim()
  if (name === "" || ![...name].every(isNameChar)) return undefined
  const args: Record<string, unknown> = {}
  let at = nameEnd + 1
  while (true) {
    const open = body.indexOf("<parameter=", at)
    if (open < 0) break
    const keyEnd = body.indexOf(">", open)
    const close = body.indexOf("</parameter>", keyEnd)
    if (keyEnd < 0 || close < 0) return undefined
    const key = body.slice(open + "<parameter=".length, keyEnd).trim()
    const raw = body.slice(keyEnd + 1, close).trim()
    const parsed = jsonOrUndefined(raw)
    args[key] = parsed === undefined || typeof parsed === "string" ? raw : parsed
    at = close + "</parameter>".length
  }
  return { _tag: "Call", name, arguments: JSON.stringify(args) }
}

/**
 * The end of a `🔧 name(args)` call in `text` (just after its closing
 * parenthesis), `undefined` while it may still be incomplete, or -1 when
 * `text` cannot be such a call.
 */
const emojiCallEnd = (text: string): number | undefined => {
  let at = 0
  while (at < text.length && text.charAt(at) === " ") at++
  const nameStart = at
  while (at < text.length && isNameChar(text.charAt(at))) at++
  if (at === text.length) return undefined
  if (at === nameStart || text.charAt(at) !== "(") return -1
  let depth = 0
  let quoted = false
  for (; at < text.length; at++) {
    const char = text.charAt(at)
    if (quoted) {
      if (char === "\\") at++
      else if (char === "\"") quoted = false
    } else if (char === "\"") quoted = true
    else if (char === "(" || char === "{" || char === "[") depth++
    else if (char === ")" || char === "}" || char === "]") {
      depth--
      if (depth === 0) return char === ")" ? at + 1 : -1
    } else if (char === "\n" && depth <= 1) return -1
  }
  return undefined
}

/** `name(args)`: args a JSON object, or nothing. */
const parseEmojiCall = (text: string): Piece | undefined => {
  const trimmed = text.trim()
  const open = trimmed.indexOf("(")
  const name = trimmed.slice(0, open)
  const inner = trimmed.slice(open + 1, -1).trim()
  if (inner === "") return { _tag: "Call", name, arguments: "{}" }
  const args = jsonOrUndefined(inner)
  return isObject(args) ? { _tag: "Call", name, arguments: JSON.stringify(args) } : undefined
}

/** Scans streamed text; feed chunks in order, then call `end`. */
export class MarkupScanner {
  private state: State = "Text"
  private buffer = ""
  /** The opener of the markup being captured, given back as text if it proves malformed. */
  private opener = ""

  /** Scans one chunk; returns what is decided so far. */
  feed(chunk: string): ReadonlyArray<Piece> {
    this.buffer += chunk
    const out: Array<Piece> = []
    while (this.step(out)) {
      // keep going while progress is made
    }
    return merge(out)
  }

  /** Flushes everything still held at the end of the stream. */
  end(): ReadonlyArray<Piece> {
    const out: Array<Piece> = []
    const rest = this.buffer
    this.buffer = ""
    switch (this.state) {
      case "Text":
        push(out, "Text", rest)
        break
      case "Think":
        push(out, "Reasoning", rest)
        break
      case "ToolCall":
        out.push(parseToolCallJson(rest) ?? { _tag: "Text", text: this.opener + rest })
        break
      case "Function":
      case "Emoji":
        push(out, "Text", this.opener + rest)
        break
    }
    this.state = "Text"
    return merge(out)
  }

  /** Makes one step of progress; false when more input is needed. */
  private step(out: Array<Piece>): boolean {
    switch (this.state) {
      case "Text":
        return this.scanText(out)
      case "Emoji":
        return this.scanEmoji(out)
      default:
        return this.scanUntilCloser(out, this.state)
    }
  }

  private scanText(out: Array<Piece>): boolean {
    const text = this.buffer
    let earliest = -1
    for (let i = 0; i < text.length && earliest < 0; i++) {
      const char = text.charAt(i)
      if (char === "<" || text.startsWith("🔧", i)) earliest = i
    }
    if (earliest < 0) {
      push(out, "Text", text)
      this.buffer = ""
      return false
    }
    push(out, "Text", text.slice(0, earliest))
    const rest = text.slice(earliest)
    const opened = openers.find(([marker]) => rest.startsWith(marker))
    if (opened !== undefined) {
      const [marker, state] = opened
      this.state = state
      this.opener = marker
      this.buffer = rest.slice(marker.length)
      return true
    }
    if (openers.some(([marker]) => marker.startsWith(rest))) {
      this.buffer = rest // could still become a marker: wait for more
      return false
    }
    push(out, "Text", rest.charAt(0))
    this.buffer = rest.slice(1)
    return true
  }

  private scanUntilCloser(out: Array<Piece>, state: "Think" | "ToolCall" | "Function"): boolean {
    const closer = closers[state]
    const at = this.buffer.indexOf(closer)
    if (at < 0) {
      if (state === "Think") {
        const hold = heldSuffix(this.buffer, closer)
        push(out, "Reasoning", this.buffer.slice(0, this.buffer.length - hold))
        this.buffer = this.buffer.slice(this.buffer.length - hold)
      }
      return false
    }
    const body = this.buffer.slice(0, at)
    this.buffer = this.buffer.slice(at + closer.length)
    this.state = "Text"
    if (state === "Think") push(out, "Reasoning", body)
    else {
      const call = state === "ToolCall" ? parseToolCallJson(body) : parseFunctionMarkup(body)
      out.push(call ?? { _tag: "Text", text: this.opener + body + closer })
    }
    return true
  }

  private scanEmoji(out: Array<Piece>): boolean {
    const end = emojiCallEnd(this.buffer)
    if (end === undefined) return false
    const call = end < 0 ? undefined : parseEmojiCall(this.buffer.slice(0, end))
    if (call === undefined) {
      push(out, "Text", this.opener)
    } else {
      out.push(call)
      this.buffer = this.buffer.slice(end)
    }
    this.state = "Text"
    return true
  }
}

const push = (out: Array<Piece>, tag: "Text" | "Reasoning", text: string): void => {
  if (text !== "") out.push({ _tag: tag, text })
}

/** Joins neighbouring pieces of the same kind of text. */
const merge = (pieces: ReadonlyArray<Piece>): ReadonlyArray<Piece> => {
  const out: Array<Piece> = []
  for (const piece of pieces) {
    const last = out.at(-1)
    if (last !== undefined && last._tag === piece._tag && piece._tag !== "Call" && last._tag !== "Call") {
      out[out.length - 1] = { _tag: piece._tag, text: last.text + piece.text }
    } else out.push(piece)
  }
  return out
}
