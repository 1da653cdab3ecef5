/**
 * Streams that open their own span when they are read, for streams on the
 * token path.
 *
 * `Stream.unwrapScoped(setup).pipe(Stream.withSpan(name))` costs more than
 * it looks at a thousand tokens a second: `unwrapScoped` flattens through a
 * concat step every chunk passes, and `withSpan` provides the span to every
 * pull. On a small model that read as several percent of the generation. A
 * stream built here runs `setup` once, with the span open, and hands its
 * chunks on with no step in between; the span ends with the stream's exit,
 * when the stream ends, fails or is interrupted.
 *
 * The span is the parent of the spans `setup` opens; the stream `setup`
 * returns is read outside it, so it should open none of its own (or name
 * the span as their `parent`).
 *
 * @module
 */
import { Channel, Clock, Effect, Exit, Scope, Stream, type Tracer } from "effect"

/**
 * Options for the spans opened on every model turn. Effect captures an
 * `Error` per span to record where it was opened; for these spans that place
 * is always the same line of the library, which tells a reader of a trace
 * nothing, while the capture is paid on every turn.
 */
export const turnSpanOptions = { captureStackTrace: false } as const

/** The span's options: {@link turnSpanOptions} unless `options` say otherwise. */
const spanOptions = (options: Tracer.SpanOptions): Tracer.SpanOptions => ({ ...turnSpanOptions, ...options })

/** `setup`, run under `span`, to the channel of the stream it returns. */
const underSpan = <A, E, E2, R>(
  span: Tracer.Span,
  setup: (span: Tracer.Span) => Effect.Effect<Stream.Stream<A, E>, E2, R>
) => Effect.map(Effect.withParentSpan(setup(span), span), Stream.toChannel)

/** A span's end, with the exit of what it measured (a success ends it as a plain success). */
const endSpan = (span: Tracer.Span, exit: Exit.Exit<unknown, unknown>): Effect.Effect<void> =>
  Effect.flatMap(Clock.currentTimeNanos, (now) => Effect.sync(() => span.end(now, Exit.isSuccess(exit) ? Exit.void : exit)))

/**
 * `setup`'s stream, with `setup` run once when it is read, under the span
 * `name`. For setups that hold nothing open: one that acquires resources
 * takes {@link scopedSpannedStream}, whose scope costs a little more.
 */
export const spannedStream = <A, E, E2, R>(
  name: string,
  options: Tracer.SpanOptions,
  setup: (span: Tracer.Span) => Effect.Effect<Stream.Stream<A, E>, E2, R>
): Stream.Stream<A, E | E2, R> =>
  Stream.fromChannel(
    Channel.acquireUseRelease(Effect.makeSpan(name, spanOptions(options)), (span) => Channel.unwrap(underSpan(span, setup)), endSpan)
  )

/**
 * {@link spannedStream} with a scope as long as the stream, for what
 * `setup` acquires: closed when the stream ends, fails or is interrupted,
 * before the span ends.
 */
export const scopedSpannedStream = <A, E, E2, R>(
  name: string,
  options: Tracer.SpanOptions,
  setup: (span: Tracer.Span) => Effect.Effect<Stream.Stream<A, E>, E2, R | Scope.Scope>
): Stream.Stream<A, E | E2, Exclude<R, Scope.Scope>> =>
  Stream.fromChannel(
    Channel.acquireUseRelease(
      Scope.make(),
      (scope) =>
        Channel.unwrap(
          Scope.extend(
            Effect.flatMap(Effect.makeSpanScoped(name, spanOptions(options)), (span) => underSpan(span, setup)),
            scope
          )
        ),
      (scope, exit) => Scope.close(scope, Exit.isSuccess(exit) ? Exit.void : exit)
    )
  )
