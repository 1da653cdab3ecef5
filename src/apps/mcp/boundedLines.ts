/**
 * Splits text into lines without ever holding more than `maxLength`
 * characters of one: a longer line is reported as too long the moment it
 * passes the cap, and the rest of it is dropped as it arrives, so a client
 * that sends hundreds of MiB without a newline costs no more memory than
 * the cap.
 *
 * @module
 */
import { Stream } from "effect"

/** One line, or the notice that a line passed the cap (its rest is skipped up to the next newline). */
export type BoundedLine =
  | { readonly _tag: "Line"; readonly text: string }
  | { readonly _tag: "TooLong" }

interface State {
  /** The start of the current line, while it is within the cap. */
  readonly partial: string
  /** Whether the current line passed the cap and is being skipped. */
  readonly skipping: boolean
}

/** Cuts one chunk against the line carried over from the previous ones. */
const cut = (maxLength: number) => (state: State, chunk: string): readonly [State, ReadonlyArray<BoundedLine>] => {
  const out: Array<BoundedLine> = []
  let { partial, skipping } = state
  let start = 0
  while (start <= chunk.length) {
    const newline = chunk.indexOf("\n", start)
    const end = newline === -1 ? chunk.length : newline
    if (!skipping) {
      partial += chunk.slice(start, end)
      if (partial.length > maxLength) {
        out.push({ _tag: "TooLong" })
        partial = ""
        skipping = true
      }
    }
    if (newline === -1) break
    if (!skipping) out.push({ _tag: "Line", text: partial.endsWith("\r") ? partial.slice(0, -1) : partial })
    partial = ""
    skipping = false
    start = newline + 1
  }
  return [{ partial, skipping }, out]
}

/** The lines of `text`, each at most `maxLength` characters; a last line without a newline counts too. */
export const boundedLines = <E, R>(text: Stream.Stream<string, E, R>, maxLength: number): Stream.Stream<BoundedLine, E, R> =>
  text.pipe(
    // A final newline flushes a last line the client did not end.
    Stream.concat(Stream.make("\n")),
    Stream.mapAccum<State, string, ReadonlyArray<BoundedLine>>({ partial: "", skipping: false }, cut(maxLength)),
    Stream.flattenIterables
  )
