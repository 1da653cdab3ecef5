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

/** The flags that may stand once, each spelling (lower-cased) to its option's first name: `-m` → `--model`. */
export type OnceTable = ReadonlyMap<string, string>

/** A command by name with the flags it takes. */
export interface Accepting {
  readonly name: string
  readonly flags: FlagTable
  /** The flags given at most once; none when left out. */
  readonly once?: OnceTable
}

/** A command line refused before anything runs: the flag, and the command it was given to. */
export class CommandLineError extends Schema.TaggedError<CommandLineError>()("CommandLineError", {
  /** The command as typed: `easyai`, `easyai serve`. */
  command: Schema.String,
  /** The flag as given, without any `=value`. */
  flag: Schema.String,
  /** Unknown to the command; one it takes but placed before its name; several short flags run together; or a flag whose value is missing. */
  reason: Schema.Literal("Unknown", "BeforeCommand", "Clustered", "MissingValue", "Repeated")
}) {
  override get message(): string {
    const help = `(see ${this.command} --help)`
    switch (this.reason) {
      case "Unknown":
        return `unknown flag ${this.flag} ${help}`
      case "Repeated":
        return `${this.flag} is given twice: give it once ${help}`
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

/** The named options of a usage, and whether each may be repeated. */
const namedIn = (usage: Usage.Usage, repeated = false): ReadonlyArray<readonly [Usage.Named, boolean]> => {
  switch (usage._tag) {
    case "Named":
      return [[usage, repeated]]
    case "Optional":
      return namedIn(usage.usage, repeated)
    case "Repeated":
      return namedIn(usage.usage, true)
    case "Concat":
    case "Alternation":
      return [...namedIn(usage.left, repeated), ...namedIn(usage.right, repeated)]
    case "Empty":
    case "Mixed":
      return []
  }
}

/** The table of one `Options` value, from its usage (what `--help` prints). */
const tableOf = (options: Options.Options<unknown>): Array<readonly [string, boolean]> =>
  namedIn(Options.getUsage(options)).flatMap(([named]) =>
    named.names.map((name) => [name.toLowerCase(), Option.isSome(named.acceptedValues)] as const)
  )

/** The once-only flags of one `Options` value, each spelling to the option's first name. */
const onceOf = (options: Options.Options<unknown>): Array<readonly [string, string]> =>
  namedIn(Options.getUsage(options)).flatMap(([named, repeated]) =>
    repeated ? [] : named.names.map((name) => [name.toLowerCase(), named.names[0] ?? name] as const)
  )

const entriesOf = <A>(read: (options: Options.Options<unknown>) => Array<A>) => (config: unknown): Array<A> => {
  if (Options.isOptions(config)) return read(config)
  if (Args.isArgs(config)) return []
  if (Array.isArray(config)) return config.flatMap(entriesOf(read))
  if (Predicate.isRecord(config)) return Object.values(config).flatMap(entriesOf(read))
  return []
}

/** The flags of a command's config, the record `Command.make` takes (its `Args` are not flags). */
export const flagTable = (config: Command.Command.Config): FlagTable => new Map(entriesOf(tableOf)(config))

/** The flags of a command's config that may stand once. */
export const onceTable = (config: Command.Command.Config): OnceTable => new Map(entriesOf(onceOf)(config))

/** The second of two spellings of one once-only flag among `flags`, if any. */
const repeatedIn = (command: string, flags: ReadonlyArray<string>, once: OnceTable | undefined): Option.Option<CommandLineError> => {
  const seen = new Set<string>()
  for (const flag of flags) {
    const option = once?.get(flag.toLowerCase())
    if (option === undefined) continue
    if (seen.has(option)) return Option.some(new CommandLineError({ command, flag, reason: "Repeated" }))
    seen.add(option)
  }
  return Option.none()
}

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
    const flags = flagsIn(argv, known)
    const refused = Option.orElse(Arr.findFirst(flags, (flag) => refuse(root.name, known)(flag)), () => missingValue(root.name, argv, known)).pipe(
      Option.orElse(() => repeatedIn(root.name, flags, root.once))
    )
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
  const given = flagsIn(rest, known)
  const after = Option.orElse(before, () => Arr.findFirst(given, refuse(command, known))).pipe(
    Option.orElse(() => missingValue(command, rest, known)),
    Option.orElse(() => repeatedIn(command, given, subcommand.once))
  )
  return Option.match(after, {
    onNone: () => Effect.succeed({ _tag: "Subcommand" as const, subcommand }),
    onSome: Effect.fail
  })
}
