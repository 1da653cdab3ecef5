/**
 * A streaming filter that removes inline reasoning blocks from model text on
 * the display path (`easyai chat --no-reasoning`).
 *
 * Some OpenAI-compatible backends send a reasoning model's thoughts inline in
 * the content, wrapped in `<think>…</think>` (or `<thinking>…</thinking>`),
 * and the tags may be split across chunks (`"Hello <th"`, `"ink>secret</thi"`,
 * `"nk> world"`). easyai's own engine and Client already separate reasoning;
 * this is the safety net for everything else.
 *
 * Rules, all decided left to right so the output never depends on how the
 * stream was cut into chunks:
 *
 * - Tags are `<think>`, `</think>`, `<thinking>` and `</thinking>`, matched
 *   with ASCII case folding and nothing else inside the angle brackets. A `<`
 *   that does not start a tag is plain text (`if a < b` stays).
 * - Blocks nest: every opening tag deepens, every closing tag ends the
 *   innermost block (the two spellings are interchangeable). Everything inside
 *   a block is dropped; text before, between and after blocks is kept.
 * - A closing tag with no open block is a stray. Some chat templates open the
 *   block in the prompt, so the stream starts inside it. While no visible
 *   (non-whitespace) text has been emitted the stray is dropped, otherwise it is
 *   kept as literal text. Text already emitted is never taken back: to hide
 *   reasoning a template opened in the prompt, construct the filter with
 *   `startsInside: true`.
 * - At the end of the stream an unterminated block drops the rest, and a
 *   partial tag that never completed is given back as text.
 * - With `collapseBlankLines` (the default) the visible text never starts
 *   with line breaks, and the line breaks that follow a closed block are
 *   dropped when the visible text so far ends at the start of a line — so
 *   `"<think>…</think>\n\nAnswer"` shows as `"Answer"`.
 *
 * Only a possible partial tag at the end of a chunk is held back, never more
 * than {@link maxHeldLength} characters, and each character is looked at a
 * bounded number of times, so the work is linear in the stream's length. No
 * regular expressions run over model output.
 *
 * @module
 */

type TagKind = "Open" | "Close"

const tags: ReadonlyArray<readonly [string, TagKind]> = [
  ["<think>", "Open"],
  ["<thinking>", "Open"],
  ["</think>", "Close"],
  ["</thinking>", "Close"]
]

/** The longest held-back text: one character less than the longest tag. */
export const maxHeldLength = Math.max(...tags.map(([tag]) => tag.length)) - 1

/** Options for a {@link ReasoningFilter}. */
export interface ReasoningFilterOptions {
  /**
   * Drop line breaks at the start of the visible text and after a closed
   * block that ends at the start of a line. Default `true`.
   */
  readonly collapseBlankLines?: boolean
  /**
   * The stream starts inside a reasoning block (the chat template opened it
   * in the prompt): everything up to the first closing tag is dropped, and all
   * of it if none comes. Default `false`.
   */
  readonly startsInside?: boolean
}

const asciiLower = (char: string): string => (char >= "A" && char <= "Z" ? char.toLowerCase() : char)

const isLineBreak = (char: string): boolean => char === "\n" || char === "\r"

const isWhitespace = (char: string): boolean => char === " " || char === "\t" || isLineBreak(char)

/**
 * The tag starting at `at` (where `text` has a `<`): its kind and length,
 * `"Partial"` when the text ends inside what could still be a tag, or
 * `undefined` when no tag starts there.
 */
const tagAt = (
  text: string,
  at: number
): { readonly kind: TagKind; readonly length: number } | "Partial" | undefined => {
  let partial = false
  for (const [tag, kind] of tags) {
    let matched = 0
    while (matched < tag.length && at + matched < text.length) {
      if (asciiLower(text.charAt(at + matched)) !== tag.charAt(matched)) break
      matched++
    }
    if (matched === tag.length) return { kind, length: tag.length }
    if (at + matched === text.length) partial = true
  }
  return partial ? "Partial" : undefined
}

/**
 * Removes reasoning blocks from one stream of model text. Feed the chunks in
 * order to {@link ReasoningFilter.push}, then call {@link ReasoningFilter.end}
 * once; the concatenation of what they return is the visible text. `end`
 * leaves the filter as new, ready for another stream.
 */
export class ReasoningFilter {
  private readonly collapse: boolean
  private readonly startsInside: boolean
  /** How many blocks are open. */
  private depth: number
  /** A possible partial tag held from the previous chunk. */
  private held = ""
  /** Whether any non-whitespace visible text has been emitted. */
  private sawVisible = false
  /** Whether line breaks are being dropped right now. */
  private collapsing: boolean
  /** The last visible character emitted, `""` before any. */
  private lastChar = ""

  constructor(options: ReasoningFilterOptions = {}) {
    this.collapse = options.collapseBlankLines ?? true
    this.startsInside = options.startsInside ?? false
    this.depth = this.startsInside ? 1 : 0
    this.collapsing = this.collapse
  }

  /** Filters one chunk; returns the visible text that can be shown now. */
  push(chunk: string): string {
    const text = this.held + chunk
    this.held = ""
    return this.scan(text, false)
  }

  /** Ends the stream; returns what was held back and still visible. */
  end(): string {
    const text = this.held
    this.held = ""
    const out = this.scan(text, true)
    this.depth = this.startsInside ? 1 : 0
    this.sawVisible = false
    this.collapsing = this.collapse
    this.lastChar = ""
    return out
  }

  private scan(text: string, final: boolean): string {
    const out: Array<string> = []
    let at = 0
    while (at < text.length) {
      const open = text.indexOf("<", at)
      if (open < 0) {
        this.text(text.slice(at), out)
        break
      }
      this.text(text.slice(at, open), out)
      const tag = tagAt(text, open)
      if (tag === "Partial") {
        if (final) this.text(text.slice(open), out)
        else this.held = text.slice(open)
        break
      }
      if (tag === undefined) {
        this.text("<", out)
        at = open + 1
        continue
      }
      at = open + tag.length
      this.tag(tag.kind, text.slice(open, at), out)
    }
    return out.join("")
  }

  /** Plain text: dropped inside a block, otherwise emitted. */
  private text(text: string, out: Array<string>): void {
    if (this.depth > 0 || text === "") return
    let start = 0
    if (this.collapsing) {
      while (start < text.length && isLineBreak(text.charAt(start))) start++
      if (start === text.length) return
      this.collapsing = false
    }
    const visible = start === 0 ? text : text.slice(start)
    out.push(visible)
    this.lastChar = visible.charAt(visible.length - 1)
    if (!this.sawVisible) {
      for (const char of visible) {
        if (!isWhitespace(char)) {
          this.sawVisible = true
          break
        }
      }
    }
  }

  private tag(kind: TagKind, literal: string, out: Array<string>): void {
    if (kind === "Open") {
      this.depth++
      return
    }
    if (this.depth > 0) {
      this.depth--
      if (this.depth === 0) this.afterBlock()
    } else if (!this.sawVisible) {
      this.afterBlock() // a stray closer before any visible text: the block was opened in the prompt
    } else {
      this.text(literal, out)
    }
  }

  private afterBlock(): void {
    this.collapsing = this.collapse && (this.lastChar === "" || this.lastChar === "\n")
  }
}

/** Removes reasoning blocks from a complete text (one push and the end). */
export const stripReasoning = (text: string, options: ReasoningFilterOptions = {}): string => {
  const filter = new ReasoningFilter(options)
  return filter.push(text) + filter.end()
}
