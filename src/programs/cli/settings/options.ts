/**
 * A program's `@effect/cli` options, derived from the declarations. Every
 * option parses to the texts given (none, one, or several for a repeatable
 * flag); the resolver decodes them with the setting's own codec, so a flag,
 * an INI key and a variable are read alike and fail alike.
 *
 * @module
 */
import { Options } from "@effect/cli"
import { Array as Arr, Effect, Either, Option } from "effect"
import { declaration, type FlagValue, type Id, ids, resolve } from "./resolve.js"
import { SettingsError } from "./iniFile.js"
import type { Program, Setting } from "./Setting.js"

/** What a program's options parse to: each flag's texts, by option key. */
export type ParsedFlags = Readonly<Record<string, ReadonlyArray<string>>>

const negationKey = (id: Id) => `${id}:no`

/** `-fa`, `--ngl` → `fa`, `ngl`: `@effect/cli` writes a one-letter alias `-x` and any other `--name`. */
const aliasName = (alias: string): string => alias.replace(/^-+/, "")

const withAliases = <A>(option: Options.Options<A>, aliases: ReadonlyArray<string>, own: string): Options.Options<A> =>
  Arr.dedupe(aliases.map(aliasName)).filter((alias) => alias !== own).reduce((current, alias) => Options.withAlias(current, alias), option)

const switchOption = (name: string, aliases: ReadonlyArray<string>, text: string) =>
  withAliases(Options.boolean(name), aliases, name).pipe(Options.map((given): ReadonlyArray<string> => (given ? [text] : [])))

const valueOption = (setting: Setting<unknown>, name: string) => {
  const text = withAliases(Options.text(name), setting.aliases, name)
  return setting.repeatable
    ? Options.repeated(text).pipe(Options.map((given): ReadonlyArray<string> => given))
    : Options.optional(text).pipe(Options.map((given): ReadonlyArray<string> => Option.toArray(given)))
}

const isSwitch = (setting: Setting<unknown>): boolean => setting.codec.metavar === "on|off" && !setting.flagTakesValue

/** The options of `program`: one per flag (and one per negation) of every setting it takes. */
export const optionsFor = (program: Program): Readonly<Record<string, Options.Options<ReadonlyArray<string>>>> => {
  const options: Record<string, Options.Options<ReadonlyArray<string>>> = {}
  for (const id of ids) {
    const setting = declaration(id)
    if (!setting.programs.includes(program)) continue
    if (setting.flag !== undefined) {
      options[id] = isSwitch(setting) ? switchOption(setting.flag, setting.aliases, "on") : valueOption(setting, setting.flag)
    }
    if (setting.negation !== undefined) options[negationKey(id)] = switchOption(setting.negation, setting.negationAliases, "off")
  }
  return options
}

/** Whether `setting`'s flag takes a value (for help and the command-line check). */
export const takesValue = (setting: Setting<unknown>): boolean => !isSwitch(setting)

/** The parsed options as the resolver reads them; a flag given with its negation is refused. */
export const flagValues = (program: Program, parsed: ParsedFlags): Either.Either<ReadonlyMap<Id, FlagValue>, SettingsError> => {
  const values = new Map<Id, FlagValue>()
  for (const id of ids) {
    const setting = declaration(id)
    if (!setting.programs.includes(program)) continue
    const given = parsed[id] ?? []
    const negated = parsed[negationKey(id)] ?? []
    if (given.length > 0 && negated.length > 0) {
      return Either.left(new SettingsError({ source: `--${setting.flag}`, detail: `give it or --${setting.negation}, not both` }))
    }
    if (given.length > 0 && setting.flag !== undefined) values.set(id, { flag: `--${setting.flag}`, text: given.join(",") })
    if (negated.length > 0 && setting.negation !== undefined) values.set(id, { flag: `--${setting.negation}`, text: "off" })
  }
  return Either.right(values)
}

/** The settings of a command line: its flags, then the file and the environment under the one precedence. */
export const settingsFor = (program: Program, parsed: ParsedFlags) =>
  Effect.flatMap(flagValues(program, parsed), (flags) => resolve(program, flags))

/** The aliases written llama.cpp's way, one dash and several letters (`-ngl`, `-fa`): the command line reads them as `--ngl`. */
export const longSingleDashAliases: ReadonlySet<string> = new Set(
  ids.flatMap((id) => {
    const setting = declaration(id)
    return [...setting.aliases, ...setting.negationAliases].filter((alias) => /^-[^-]{2,}$/.test(alias))
  })
)
