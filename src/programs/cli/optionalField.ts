/**
 * From a parsed optional flag to an optional property, for building
 * configuration objects under `exactOptionalPropertyTypes`.
 *
 * @module
 */
import { Option } from "effect"

/** `{ [key]: value }` when the flag was given, else `{}`. */
export const optionalField = <K extends string, A>(key: K, value: Option.Option<A>): { readonly [P in K]?: A } =>
  // boundary: a computed key widens to `string`; it is exactly `K` here
  Option.match(value, { onNone: () => ({}), onSome: (a) => ({ [key]: a }) as { readonly [P in K]?: A } })
