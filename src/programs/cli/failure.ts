/**
 * How a command that failed ends: one line on stderr naming what went
 * wrong, and exit code 1 — not a logged cause with a stack trace.
 *
 * @module
 */
import { Console, Effect } from "effect"
import { ContextOverflow } from "../../domain/errors.js"

const hasMessage = (error: unknown): error is { readonly message: string } =>
  typeof error === "object" && error !== null && "message" in error && typeof error.message === "string"

/** What gets a conversation that no longer fits going again, in the chat. */
export const overflowHint = "/compress the conversation, start with a larger --ctx, or leave the tools out with --no-tools"

/**
 * One line for a failure: the error's message (a `ServeError` says what the
 * socket said; a context overflow, how to get out of it).
 */
export const describeFailure = (error: unknown): string => {
  if (error instanceof ContextOverflow) return `${error.message}: ${overflowHint}`
  if (typeof error === "object" && error !== null && "_tag" in error && error._tag === "ServeError" && "cause" in error) {
    return `cannot listen: ${hasMessage(error.cause) ? error.cause.message : String(error.cause)}`
  }
  const text = hasMessage(error) && error.message !== "" ? error.message : String(error)
  return text.split("\n").map((line) => line.trim()).filter((line) => line !== "").join(" ")
}

/** The exit code of a command line that cannot run as written: a flag, a value, a settings file. */
export const usageExitCode = 2

const isUsageError = (error: unknown): boolean =>
  typeof error === "object" && error !== null && "_tag" in error && (error._tag === "SettingsError" || error._tag === "CommandLineError")

/** Reports a failure of `effect` as `<command>: <what went wrong>` and sets the exit code: 2 for a usage error, else 1. */
export const reportFailure = (command: string) =>
<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A | void, never, R> =>
  Effect.catchAll(effect, (error) =>
    Effect.zipRight(
      Console.error(`${command}: ${describeFailure(error)}`),
      Effect.sync(() => {
        process.exitCode = isUsageError(error) ? usageExitCode : 1
      })
    ))
