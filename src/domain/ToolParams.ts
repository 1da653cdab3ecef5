/**
 * Parameter Schemas that built-in and custom tools share.
 *
 * @module
 */
import { Schema } from "effect"

/**
 * A count whose JSON Schema shows the range a call should use
 * (`minimum`/`maximum`), while decoding takes any positive integer: the
 * handler moves a value outside the range into it rather than refusing the
 * call. Say the range and what happens outside it in the description.
 */
export const rangedCount = (minimum: number, maximum: number) =>
  Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)).annotations({ jsonSchema: { minimum, maximum } })
