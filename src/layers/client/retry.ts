/**
 * The retry policy of every HTTP call the client makes, named once.
 *
 * Only what happens before a response arrives is retried: connection
 * refused or reset, DNS and TLS handshake failures, a response that does not
 * start within the inactivity timeout, and 5xx statuses. A 4xx is a contract
 * or authentication failure and is never retried; once a 2xx response has
 * started, nothing is (a fresh attempt would replay tokens the caller has
 * already seen); interruption is never retried.
 *
 * @module
 */
import { Duration, Effect, Schedule } from "effect"
import type { HttpStatusError, TransportError } from "../../domain/httpErrors.js"

/** The failures an attempt can end with before a response started. */
export type AttemptError = TransportError | HttpStatusError

/**
 * The backoff: 250 ms, 500 ms, 1 s, 2 s, 4 s, then 4 s each time, for at
 * most `retries` retries (so `retries + 1` attempts; 0 disables retrying).
 */
export const backoff = (retries: number) =>
  Schedule.exponential("250 millis").pipe(
    Schedule.union(Schedule.spaced("4 seconds")),
    Schedule.intersect(Schedule.recurs(retries))
  )

/** Whether an attempt's failure may be retried. */
export const isRetryable = (error: AttemptError): boolean => error.isRetryable

/** A short reason for the retry log. */
export const reasonOf = (error: AttemptError): string => {
  switch (error._tag) {
    case "HttpStatusError":
      return `HTTP ${error.status}`
    case "TransportError":
      return error.detail
  }
}

/**
 * The backoff, only while the failure is retryable, logging each retry once
 * (never the final failure): `HTTP attempt N/M failed (REASON); retrying in B ms`.
 */
export const policy = (retries: number, url: string) =>
  Schedule.delays(backoff(retries)).pipe(
    Schedule.intersect(Schedule.identity<AttemptError>()),
    Schedule.intersect(Schedule.count),
    Schedule.whileInput(isRetryable),
    Schedule.onDecision(([[delay, error], retry], decision) =>
      decision._tag === "Continue"
        ? Effect.logWarning(
          `HTTP attempt ${retry + 1}/${retries + 1} failed (${reasonOf(error)}); retrying in ${Duration.toMillis(delay)}ms`
        ).pipe(Effect.annotateLogs({ url }))
        : Effect.void
    )
  )

/** Runs `attempt`, retried under {@link policy}. */
export const withRetry = (retries: number, url: string) => <A, R>(attempt: Effect.Effect<A, AttemptError, R>) =>
  Effect.retry(attempt, policy(retries, url))
