/**
 * What a caught foreign value (a rejected promise, a thrown value) says, for
 * the one edge that turns it into text for a person or a model.
 *
 * @module
 */

/** The message of an `Error`, or the value as text when something else was thrown. */
export const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** The `code` a Node error carries (`ENOENT`, `EACCES` …), or `undefined`. */
export const errorCode = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined

/**
 * A short reason from a network failure's cause, e.g.
 * "ECONNREFUSED connect ECONNREFUSED 127.0.0.1:9": its code, its message and
 * the message of the error it wraps (undici wraps the socket's error once).
 * `fallback` when the cause is not an `Error`.
 */
export const networkErrorText = (cause: unknown, fallback: string): string => {
  if (!(cause instanceof Error)) return fallback
  const code = errorCode(cause)
  const inner = cause.cause instanceof Error ? cause.cause.message : undefined
  const text = inner !== undefined && inner !== cause.message ? `${cause.message}: ${inner}` : cause.message
  return code !== undefined && !text.includes(code) ? `${code} ${text}` : text
}
