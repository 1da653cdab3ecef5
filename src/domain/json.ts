/**
 * Small helpers for JSON read from the network.
 *
 * @module
 */
import { Either } from "effect"

/** Parses JSON text, or says why it is not JSON. */
export const parseJson = (text: string): Either.Either<unknown, string> => {
  try {
    return Either.right(JSON.parse(text))
  } catch (error) {
    return Either.left(error instanceof Error ? error.message : String(error))
  }
}

/** Whether a parsed value is a JSON object. */
export const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)
