/**
 * Coalescing the text of a fast generation. A small model on a CPU produces
 * a token every millisecond or so; waking the consumer's fiber for each one
 * costs more main-thread time than generating it, and that time is taken
 * from the generation loop. Deltas arriving within `windowMillis` of the
 * last flush are joined; the first one and any other event flush at once,
 * so time to first token and ordering are unchanged.
 *
 * @module
 */
import { type ModelEvent, ReasoningDelta, TextDelta } from "../../domain/ModelEvent.js"

/** How long text may wait for company; below what a reader can notice. */
export const defaultWindowMillis = 20

/** Joins consecutive text (or reasoning) deltas that arrive close together. */
export class DeltaBatcher {
  private pending: { readonly kind: "Text" | "Reasoning"; readonly text: string } | undefined
  private lastFlush = Number.NEGATIVE_INFINITY

  constructor(
    private readonly emit: (event: ModelEvent) => void,
    private readonly windowMillis = defaultWindowMillis,
    private readonly now: () => number = () => performance.now()
  ) {}

  /** Adds a piece of text or reasoning. */
  delta(kind: "Text" | "Reasoning", text: string): void {
    if (text === "") return
    if (this.pending !== undefined && this.pending.kind !== kind) this.flush()
    this.pending = { kind, text: (this.pending?.text ?? "") + text }
    if (this.now() - this.lastFlush >= this.windowMillis) this.flush()
  }

  /** Emits any other event, after the text held so far. */
  event(event: ModelEvent): void {
    this.flush()
    this.emit(event)
  }

  /** Emits the text held so far. */
  flush(): void {
    const pending = this.pending
    if (pending === undefined) return
    this.pending = undefined
    this.lastFlush = this.now()
    // The text is a string by construction: checking it against the Schema on every flush would cost more than the flush.
    this.emit(
      pending.kind === "Text" ? new TextDelta({ text: pending.text }, true) : new ReasoningDelta({ text: pending.text }, true)
    )
  }
}
