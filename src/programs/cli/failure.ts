/**
 * How a command that failed ends: one line on stderr naming what went
 * wrong, and exit code 1 — not a logged cause with a stack trace.
 *
 * @module
 */
import { Console, Effect } from "effect"

const describe = (error: { readonly _tag?: string; readonly message: string; readonly cause?: unknown }): string =>
  error._tag === "ServeError"
    ? `cannot listen: ${error.cause instanceof Error ? error.cause.message : String(error.cause)}`
    : error.message

/** Reports a failure of `effect` as `<command>: <what went wrong>` and sets the exit code. */
export const reportFailure = (command: string) =>
<A, E extends { readonly message: string }, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A | void, never, R> =>
  Effect.catchAll(effect, (error) =>
    Effect.zipRight(
      Console.error(`${command}: ${describe(error)}`),
      Effect.sync(() => {
        process.exitCode = 1
      })
    ))
