/**
 * A stream that opens its own span and scope when it is read, for streams
 * on the token path.
 *
 * `Stream.unwrapScoped(setup).pipe(Stream.withSpan(name))` costs more than
 * it looks at a thousand tokens a second: `unwrapScoped` flattens through a
 * concat step every chunk passes, and `withSpan` provides the span to every
 * pull. On a small model that read as several percent of the generation. A
 * stream built here runs `setup` once, in a scope of its own with the span
 * open, and hands its chunks on with no step in between; the scope closes,
 * and the span ends with the stream's exit, when the stream ends, fails or
 * is interrupted.
 *
 * The span is the parent of the spans `setup` opens; the stream `setup`
 * returns is read outside it, so it should open none of its own.
 *
 * @module
 */
import { Channel, Effect, Exit, Scope, Stream, type Tracer } from "effect"

/**
 * Options for the spans opened on every model turn. Effect captures an
 * `Error` per span to record where it was opened; for these spans that place
 * is always the same line of the library, which tells a reader of a trace
 * nothing, while the capture is paid on every turn.
 */
export const turnSpanOptions = { captureStackTrace: false } as const

/**
 * `setup`'s stream, with `setup` run once when it is read, under the span
 * `name` (opened with {@link turnSpanOptions} unless `options` say otherwise),
 * in a scope as long as the stream.
 */
export const spannedStream = <A, E, E2, R>(
  name: string,
  options: Tracer.SpanOptions,
  setup: (span: Tracer.Span) => Effect.Effect<Stream.Stream<A, E>, E2, R | Scope.Scope>
): Stream.Stream<A, E | E2, Exclude<R, Scope.Scope>> =>
  Stream.fromChannel(
    Channel.acquireUseRelease(
      Scope.make(),
      (scope) =>
        Channel.unwrap(
          Scope.extend(Effect.flatMap(Effect.makeSpanScoped(name, { ...turnSpanOptions, ...options }), (span) => Effect.withParentSpan(setup(span), span)), scope).pipe(
            Effect.map(Stream.toChannel)
          )
        ),
      (scope, exit) => Scope.close(scope, Exit.isSuccess(exit) ? Exit.void : exit)
    )
  )
