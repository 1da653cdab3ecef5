/**
 * One line saying why an HTTP or file operation failed, from the error
 * Node or undici gave: the code, the message and the inner cause's message.
 *
 * @module
 */

/** A short reason from a transport failure's cause, e.g. "ECONNREFUSED connect ECONNREFUSED 127.0.0.1:9". */
export const causeText = (cause: unknown, fallback: string): string => {
  if (!(cause instanceof Error)) return fallback
  const code = "code" in cause && typeof cause.code === "string" ? cause.code : undefined
  const inner = cause.cause instanceof Error ? cause.cause.message : undefined
  const text = inner !== undefined && inner !== cause.message ? `${cause.message}: ${inner}` : cause.message
  return code !== undefined && !text.includes(code) ? `${code} ${text}` : text
}
