/**
 * Small helpers for flag values: optional properties under
 * `exactOptionalPropertyTypes`, flags over settings-file values, and
 * secrets where blank means none, and the `--config` flag every command takes.
 *
 * @module
 */
import { Options } from "@effect/cli"
import { Config, Option, Redacted } from "effect"

/** `--config FILE`: the settings file; `sections` names the parts the command reads. */
export const settingsFileOption = (sections: string) =>
  Options.text("config").pipe(
    Options.optional,
    Options.withDescription(`The settings file (default: ./easyai.ini when it exists): ${sections}. Flags win over it; it wins over the environment.`)
  )

/** `{ [key]: value }` when the flag was given, else `{}`. */
export const optionalField = <K extends string, A>(key: K, value: Option.Option<A>): { readonly [P in K]?: A } =>
  // boundary: a computed key widens to `string`; it is exactly `K` here
  Option.match(value, { onNone: () => ({}), onSome: (a) => ({ [key]: a }) as { readonly [P in K]?: A } })

/** The flag when it was given, else the settings file's value (flags outrank the file). */
export const fill = <A>(flag: Option.Option<A>, value: A | undefined): Option.Option<A> =>
  Option.isSome(flag) ? flag : Option.fromNullable(value)

/** A secret that is blank counts as none: an exported but empty variable turns nothing on. */
export const nonBlank = (secret: Option.Option<Redacted.Redacted<string>>): Option.Option<Redacted.Redacted<string>> =>
  Option.filter(secret, (key) => Redacted.value(key).trim() !== "")

/** A secret from the environment variable `name`, blank meaning none. */
export const envSecret = (name: string) => Config.redacted(name).pipe(Config.option, Config.map(nonBlank))
