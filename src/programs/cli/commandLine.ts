/**
 * The command line is checked against the command it names before
 * `@effect/cli` parses it, so a flag the command does not take is refused
 * instead of silently dropped.
 *
 * Why a check of our own: when a subcommand's parse stops at a flag it does
 * not know, `@effect/cli` 0.77 hands that flag *and every argument after it*
 * back to the parent command and re-parses them there. The root command
 * (the chat) takes `--temperature` and `--api-key`, so
 * `easyai serve … --temperature 0.7 --api-key k` parsed without an error and
 * served with no key. The same parser also keeps only the last of clustered
 * short flags (`-yv` is `-v`). What each command accepts is read from its own
 * `Options` (their usage: names, aliases, and whether a value follows), so
 * this check cannot drift from the flags themselves.
 *
 * @module
 */
import { Args, BuiltInOptions, Command, HelpDoc, Options, Usage } from "@effect/cli"
import type { Command as Descriptor } from "@effect/cli/CommandDescriptor"
import { Array as Arr, Effect, Option, Predicate, Schema } from "effect"

/** The flags a command takes: each name and alias (`--model`, `-m`), lower-cased, and whether a value follows it. */
export type FlagTable = ReadonlyMap<string, boolean>

/** A command by name with the flags it takes. */
export interface Accepting {
  readonly name: string
  readonly flags: FlagTable
}

/** A command line refused before anything runs: the flag, and the command it was given to. */
export class CommandLineError extends Schema.TaggedError<CommandLineError>()("CommandLineError", {
  /** The command as typed: `easyai`, `easyai serve`. */
  command: Schema.String,
  /** The flag as given, without any `=value`. */
  flag: Schema.String,
  /** Unknown to the command; one it takes but placed before its name; several short flags run together; or a flag whose value is missing. */
  reason: Schema.Literal("Unknown", "BeforeCommand", "Clustered", "MissingValue")
}) {
  override get message(): string {
    const help = `(see ${this.command} --help)`
    switch (this.reason) {
      case "Unknown":
        return `unknown flag ${this.flag} ${help}`
      case "MissingValue":
        return `${this.flag} needs a value ${help}`
      case "BeforeCommand":
        return `${this.flag} must come after "${this.command.split(" ").at(-1)}" ${help}`
      case "Clustered":
        return `unknown flag ${this.flag}: give short flags one at a time (${
          [...this.flag.slice(1)].map((letter) => `-${letter}`).join(" ")
        }) ${help}`
    }
  }
}

const namedIn = (usage: Usage.Usage): ReadonlyArray<Usage.Named> => {
  switch (usage._tag) {
    case "Named":
      return [usage]
    case "Optional":
    case "Repeated":
      return namedIn(usage.usage)
    case "Concat":
    case "Alternation":
      return [...namedIn(usage.left), ...namedIn(usage.right)]
    case "Empty":
    case "Mixed":
      return []
  }
}

/** The table of one `Options` value, from its usage (what `--help` prints). */
const tableOf = (options: Options.Options<unknown>): Array<readonly [string, boolean]> =>
  namedIn(Options.getUsage(options)).flatMap((named) =>
    named.names.map((name) => [name.toLowerCase(), Option.isSome(named.acceptedValues)] as const)
  )

const entriesOf = (config: unknown): Array<readonly [string, boolean]> => {
  if (Options.isOptions(config)) return tableOf(config)
  if (Args.isArgs(config)) return []
  if (Array.isArray(config)) return config.flatMap(entriesOf)
  if (Predicate.isRecord(config)) return Object.values(config).flatMap(entriesOf)
  return []
}

/** The flags of a command's config, the record `Command.make` takes (its `Args` are not flags). */
export const flagTable = (config: Command.Command.Config): FlagTable => new Map(entriesOf(config))

/** `--help`, `-h`, `--version`, `--wizard`, `--completions`, `--log-level`: every command takes them. */
export const builtInFlags = (command: Descriptor<unknown>): FlagTable =>
  new Map(tableOf(BuiltInOptions.builtInOptions(command, Usage.empty, HelpDoc.empty)))

/** `--name=value` → `--name`; a short flag is kept whole (`@effect/cli` splits only `--name=value`). */
const flagName = (token: string): string => {
  const equals = token.indexOf("=")
  return token.startsWith("--") && equals > 2 ? token.slice(0, equals) : token
}

/**
 * The flags among `tokens`, in order, skipping the value that follows a
 * flag taking one (so `--temperature -1` is a flag and its value) and
 * everything after `--`.
 */
const flagsIn = (tokens: ReadonlyArray<string>, known: FlagTable): Array<string> => {
  const flags: Array<string> = []
  let isValue = false
  for (const token of tokens) {
    if (isValue) {
      isValue = false
      continue
    }
    if (token === "--") break
    if (!token.startsWith("-") || token === "-") continue
    const name = flagName(token)
    flags.push(name)
    isValue = known.get(name.toLowerCase()) === true && name === token
  }
  return flags
}

/** Whether `flag` is several short flags run together (`-yv`), each of which `known` has. */
const isCluster = (flag: string, known: FlagTable): boolean =>
  /^-[^-]{2,}$/.test(flag) && [...flag.slice(1)].every((letter) => known.has(`-${letter}`.toLowerCase()))

/** The first flag among `tokens` that takes a value but ends the command line (or stands before `--`) without one. */
const missingValue = (command: string, tokens: ReadonlyArray<string>, known: FlagTable): Option.Option<CommandLineError> => {
  const end = tokens.indexOf("--")
  const last = (end < 0 ? tokens : tokens.slice(0, end)).at(-1)
  return last !== undefined && known.get(last.toLowerCase()) === true
    ? Option.some(new CommandLineError({ command, flag: last, reason: "MissingValue" }))
    : Option.none()
}

const refuse = (command: string, known: FlagTable) => (flag: string): Option.Option<CommandLineError> => {
  if (known.has(flag.toLowerCase())) return Option.none()
  return Option.some(new CommandLineError({ command, flag, reason: isCluster(flag, known) ? "Clustered" : "Unknown" }))
}

/** The command a command line runs: the root (no subcommand named) or one subcommand. */
export type Chosen<S extends Accepting> =
  | { readonly _tag: "Root" }
  | { readonly _tag: "Subcommand"; readonly subcommand: S }

/**
 * Which command `argv` (the arguments after the program) runs, once every
 * flag in it is one that command takes.
 *
 * The subcommand is the first argument equal to a subcommand's name, the rule
 * `@effect/cli` itself splits by. Before it only the built-in flags may
 * stand: the root's flags there would be parsed for the root and never reach
 * the subcommand.
 */
export const chooseCommand = <S extends Accepting>(
  argv: ReadonlyArray<string>,
  root: Accepting,
  subcommands: ReadonlyArray<S>,
  builtIns: FlagTable
): Effect.Effect<Chosen<S>, CommandLineError> => {
  const at = argv.findIndex((token) => subcommands.some((subcommand) => subcommand.name === token))
  const subcommand = subcommands.find((candidate) => candidate.name === argv[at])
  if (subcommand === undefined) {
    const known = new Map([...builtIns, ...root.flags])
    const refused = Option.orElse(Arr.findFirst(flagsIn(argv, known), (flag) => refuse(root.name, known)(flag)), () => missingValue(root.name, argv, known))
    return Option.match(refused, {
      onNone: () => Effect.succeed({ _tag: "Root" as const }),
      onSome: Effect.fail
    })
  }
  const command = `${root.name} ${subcommand.name}`
  const known = new Map([...builtIns, ...subcommand.flags])
  const misplaced = (flag: string): Option.Option<CommandLineError> => {
    if (builtIns.has(flag.toLowerCase())) return Option.none()
    if (known.has(flag.toLowerCase())) return Option.some(new CommandLineError({ command, flag, reason: "BeforeCommand" }))
    return refuse(command, known)(flag)
  }
  const before = Arr.findFirst(flagsIn(argv.slice(0, at), builtIns), misplaced)
  const rest = argv.slice(at + 1)
  const after = Option.orElse(before, () => Arr.findFirst(flagsIn(rest, known), refuse(command, known))).pipe(
    Option.orElse(() => missingValue(command, rest, known))
  )
  return Option.match(after, {
    onNone: () => Effect.succeed({ _tag: "Subcommand" as const, subcommand }),
    onSome: Effect.fail
  })
}
