/**
 * The parameter types the fs operations share, so the split tools and the
 * unified tool constrain a parameter the same way.
 *
 * @module
 */
import { Schema } from "effect"

/** A path inside the sandbox, as the model writes it. */
export const PathParam = Schema.String.pipe(Schema.minLength(1))
/** A 1-based line number. */
export const LineNumber = Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))
/** The last line an edit replaces; `start_line - 1` inserts, so it may be 0. */
export const EndLine = Schema.Int.pipe(Schema.greaterThanOrEqualTo(0))
/** A byte offset. */
export const ByteOffset = Schema.Int.pipe(Schema.greaterThanOrEqualTo(0))
/** A positive count (lines, bytes, results); values above a cap are clamped, not refused. */
export const Count = Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))
/** A glob or a regular expression. */
export const Pattern = Schema.String.pipe(Schema.minLength(1))

/** `value` clamped to `max`, and a note when it was. */
export const clampCount = (
  requested: number | undefined,
  fallback: number,
  max: number,
  unit: string
): { readonly value: number; readonly note: string | undefined } =>
  requested !== undefined && requested > max
    ? { value: max, note: `[${requested} ${unit} asked for; ${max} is the most one call gives, so ${max} it is]` }
    : { value: requested ?? fallback, note: undefined }
