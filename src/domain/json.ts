/**
 * Small helpers for JSON read from the network.
 *
 * @module
 */
import { Either, Schema } from "effect"
import { errorText } from "./errorText.js"

/** Parses JSON text, or says why it is not JSON. */
export const parseJson = (text: string): Either.Either<unknown, string> => {
  try {
    return Either.right(JSON.parse(text))
  } catch (error) {
    return Either.left(errorText(error))
  }
}

/** A field a JSON body may leave out or send as `null`, as OpenAI-style clients do. */
export const optionalNullable = <S extends Schema.Schema.Any>(schema: S) => Schema.optional(Schema.NullOr(schema))

/** Whether a parsed value is a JSON object. */
export const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)
