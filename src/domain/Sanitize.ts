import { utf8Length } from "./utf8.js"
/**
 * The two sanitizers every text spliced into a system prompt goes through.
 *
 * They are the seatbelt for text from less-trusted places (external tool
 * manifests, MCP tool descriptors, a remote `/v1/tools` listing): a name with
 * an embedded newline must not forge a section of the prompt, and an ESC
 * sequence must not reach an operator's terminal through
 * `--show-system-prompt`.
 *
 * @module
 */

/** Cap for a tool name in the active-tools list, in characters. */
export const toolNameCap = 64
/** Cap for a tool's one-line description in the active-tools list, in characters. */
export const toolDescriptionCap = 200
/** Cap for one tool's system addendum, in UTF-8 bytes. */
export const toolAddendumCap = 8 * 1024
/** Cap for the operator's appended system text, in UTF-8 bytes. */
export const operatorAppendCap = 16 * 1024

const isC0OrDel = (code: number): boolean => code <= 0x1f || code === 0x7f

/**
 * For one-line structural items (a tool's name, its short description): every
 * run of C0 control characters (newlines included) and DEL collapses to one
 * space, and the result is cut to `cap` characters. Characters beyond ASCII
 * pass through unchanged and are never split.
 */
export const sanitizeSingleLine = (text: string, cap: number): string => {
  const out: Array<string> = []
  let previousWasControl = false
  for (const char of text) {
    if (out.length >= cap) break
    if (isC0OrDel(char.codePointAt(0) ?? 0)) {
      if (!previousWasControl) out.push(" ")
      previousWasControl = true
    } else {
      out.push(char)
      previousWasControl = false
    }
  }
  return out.join("")
}

/**
 * For multi-paragraph blocks (a tool's system addendum, the operator's
 * appended text): keeps newline and tab, removes every other C0 control
 * (ESC, BEL, CR, …) and DEL, and cuts the result to `capBytes` UTF-8 bytes
 * without splitting a character.
 */
export const sanitizeAddendum = (text: string, capBytes: number): string => {
  const out: Array<string> = []
  let bytes = 0
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0
    if (isC0OrDel(code) && char !== "\n" && char !== "\t") continue
    const size = utf8Length(char)
    if (bytes + size > capBytes) break
    out.push(char)
    bytes += size
  }
  return out.join("")
}
