/**
 * One finished span as a JSON line: what `--trace-file` writes, what
 * `easyai replay` reads back, and what the verbose renderer prints from.
 *
 * @module
 */
import { Cause, Exit, Option, Schema, type Tracer } from "effect"

/** An event recorded inside a span (a retry, a hop reset…). */
export const SpanEventRecord = Schema.Struct({
  name: Schema.String,
  /** Milliseconds since the Unix epoch. */
  time: Schema.Number,
  attributes: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})

/** One finished span. Times are milliseconds since the Unix epoch. */
export const SpanRecord = Schema.Struct({
  name: Schema.String,
  traceId: Schema.String,
  spanId: Schema.String,
  parentSpanId: Schema.optional(Schema.String),
  kind: Schema.String,
  start: Schema.Number,
  end: Schema.Number,
  status: Schema.Literal("ok", "error", "interrupted"),
  error: Schema.optional(Schema.String),
  attributes: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  events: Schema.Array(SpanEventRecord)
})
/** One finished span. */
export type SpanRecord = typeof SpanRecord.Type

/** A span's timestamps are nanoseconds; a record's are milliseconds. */
const millis = (nanos: bigint): number => Number(nanos / 1000n) / 1000

/** A value a JSON line can carry: bigints become numbers, anything else unknown becomes its text. */
const jsonValue = (value: unknown): unknown => {
  if (typeof value === "bigint") return Number(value)
  if (value === null || ["string", "number", "boolean"].includes(typeof value)) return value
  if (Array.isArray(value)) return value.map(jsonValue)
  return String(value)
}

const jsonAttributes = (attributes: Iterable<readonly [string, unknown]>): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of attributes) out[key] = jsonValue(value)
  return out
}

/** A span's events, as they are kept while it runs. */
export interface RecordedEvent {
  readonly name: string
  readonly time: bigint
  readonly attributes: Readonly<Record<string, unknown>> | undefined
}

/** The record of `span`, which ended at `endTime` with `exit`. */
export const toRecord = (
  span: Tracer.Span,
  startTime: bigint,
  endTime: bigint,
  exit: Exit.Exit<unknown, unknown>,
  events: ReadonlyArray<RecordedEvent>
): SpanRecord => {
  const failed = Exit.isFailure(exit)
  const interrupted = failed && Cause.isInterruptedOnly(exit.cause)
  const parent = Option.getOrUndefined(span.parent)
  return {
    name: span.name,
    traceId: span.traceId,
    spanId: span.spanId,
    ...(parent === undefined ? {} : { parentSpanId: parent.spanId }),
    kind: span.kind,
    start: millis(startTime),
    end: millis(endTime),
    status: !failed ? "ok" : interrupted ? "interrupted" : "error",
    ...(failed && !interrupted ? { error: Cause.pretty(exit.cause, { renderErrorCause: false }).split("\n")[0] ?? "" } : {}),
    attributes: jsonAttributes(span.attributes),
    events: events.map((event) => ({
      name: event.name,
      time: millis(event.time),
      attributes: jsonAttributes(Object.entries(event.attributes ?? {}))
    }))
  }
}
