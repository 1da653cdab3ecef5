/**
 * What the Promise façade rejects with when more than one thing went wrong
 * at once. A question that failed one way rejects with that typed error
 * itself (a `ModelError`, an `OutputDecodeError` …); when failures combine
 * (parallel tool calls failing together, a failure and a defect in the
 * clean-up after it), squashing them to one would hide the rest, so the
 * rejection is an {@link EasyAiError} carrying the whole `Cause`.
 *
 * @module
 */
import { Cause, Chunk, Schema } from "effect"

/** Several failures at once: `error` is the first, `failures` all of them (failures, then defects), `cause` the whole `Cause`. */
export class EasyAiError extends Schema.TaggedError<EasyAiError>()("EasyAiError", {
  /** The first failure (else the first defect), as a single rejection would have carried it. */
  error: Schema.Unknown,
  /** Every failure of the cause, then every defect. */
  failures: Schema.Array(Schema.Unknown),
  /** The whole cause, failures, defects and interruptions with their structure. */
  cause: Schema.CauseFromSelf({ error: Schema.Unknown, defect: Schema.Defect })
}) {
  override get message(): string {
    return `${this.failures.length} failures at once:\n${Cause.pretty(this.cause)}`
  }
}

/** Whether `value` is an {@link EasyAiError}. */
export const isEasyAiError: (value: unknown) => value is EasyAiError = Schema.is(EasyAiError)

/**
 * What a failed run rejects with: its only failure or defect as it is, an
 * `InterruptedException` when it was only interrupted, and an
 * {@link EasyAiError} keeping everything when there was more than one.
 */
export const rejectionOf = (cause: Cause.Cause<unknown>): unknown => {
  const failures = [...Chunk.toReadonlyArray(Cause.failures(cause)), ...Chunk.toReadonlyArray(Cause.defects(cause))]
  return failures.length > 1 ? new EasyAiError({ error: Cause.squash(cause), failures, cause }) : Cause.squash(cause)
}
