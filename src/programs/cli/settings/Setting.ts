/**
 * What one setting is, declared once: its type, default, one-line doc, flag
 * and aliases, INI key, environment variable and the programs that take it.
 * Flags, the INI reader, the environment, `--help`, `easyai config` and the
 * docs' settings table are all read from these declarations.
 *
 * @module
 */
import type { Codec } from "./codec.js"

/** A program that reads settings. `remote` is the management commands (models, health, props, metrics, preset). */
export type Program = "chat" | "serve" | "mcp" | "tools" | "remote"

/** Every program, in the order help and docs list them. */
export const programs: ReadonlyArray<Program> = ["chat", "serve", "mcp", "tools", "remote"]

/** The INI section each program reads its own settings from. */
export const programSection: Readonly<Record<Program, "cli" | "SERVER" | "MCP">> = {
  chat: "cli",
  serve: "SERVER",
  mcp: "MCP",
  tools: "cli",
  remote: "cli"
}

/** The groups help and docs list settings under, in order. */
export const topics = ["model", "sampling", "prompt", "tools", "chat", "server", "remote", "general"] as const

/** A group of settings. */
export type Topic = (typeof topics)[number]

/** What a topic is about, as its heading. */
export const topicTitle: Readonly<Record<Topic, string>> = {
  model: "Local model",
  sampling: "Sampling",
  prompt: "System prompt",
  tools: "Tools",
  chat: "Chat",
  server: "Server",
  remote: "Remote server",
  general: "General"
}

/** One setting. */
export interface Setting<A> {
  /** Its id: the key of the declarations' record (camelCase). */
  readonly id: string
  readonly codec: Codec<A>
  /** One line, for help and docs. */
  readonly doc: string
  readonly topic: Topic
  readonly programs: ReadonlyArray<Program>
  /** The value when no source sets one; none means "unset" (the library decides). */
  readonly default?: NoInfer<A>
  /** A program's own default, over {@link default}. */
  readonly programDefaults?: Partial<Record<Program, NoInfer<A>>>
  /** The default as a person reads it, when it is not a value (`the model's training context`). */
  readonly defaultText?: string
  /** The flag's name without dashes; none when the setting has no flag of its own. */
  readonly flag?: string
  /** Other spellings of the flag, dashes included (`-m`, `--ngl`, `-fa`). */
  readonly aliases: ReadonlyArray<string>
  /** A boolean's flag takes no value (its presence is `on`) unless this is set; other flags always take one. */
  readonly flagTakesValue: boolean
  /** A flag that sets a boolean off (`no-python`), without dashes, and its other spellings. */
  readonly negation?: string
  readonly negationAliases: ReadonlyArray<string>
  /** The flag may be given several times; its values join into one comma-separated list. */
  readonly repeatable: boolean
  /** The INI key; none when the file cannot set it. */
  readonly ini?: string
  /** Other INI spellings (`ctx_size` for `context`). */
  readonly iniAliases: ReadonlyArray<string>
  /** Also read from `[ENGINE]` and `[MODEL_<pattern>]`: how a local model loads and samples. */
  readonly engine: boolean
  /** The environment variable; none when the environment cannot set it. */
  readonly env?: string
}

/** The fields {@link declare} derives when a declaration leaves them out. */
type Derived = "id" | "flag" | "aliases" | "flagTakesValue" | "negationAliases" | "repeatable" | "ini" | "iniAliases" | "engine"

/** What a declaration writes; the rest is derived (flag `top-p` and INI key `top_p` from the id `topP`). */
export interface Declaration<A> extends Omit<Setting<A>, Derived> {
  /** The flag's name, `false` for none; default: the id in kebab-case. */
  readonly flag?: string | false
  readonly aliases?: ReadonlyArray<string>
  readonly flagTakesValue?: boolean
  readonly negationAliases?: ReadonlyArray<string>
  readonly repeatable?: boolean
  /** The INI key, `false` for none; default: the id in snake_case. */
  readonly ini?: string | false
  readonly iniAliases?: ReadonlyArray<string>
  readonly engine?: boolean
}

const words = (id: string): ReadonlyArray<string> => id.split(/(?=[A-Z])/).map((word) => word.toLowerCase())

/** Completes a declaration. */
export const declare = <A>(id: string, declaration: Declaration<A>): Setting<A> => ({
  id,
  codec: declaration.codec,
  doc: declaration.doc,
  topic: declaration.topic,
  programs: declaration.programs,
  ...(declaration.default === undefined ? {} : { default: declaration.default }),
  ...(declaration.programDefaults === undefined ? {} : { programDefaults: declaration.programDefaults }),
  ...(declaration.defaultText === undefined ? {} : { defaultText: declaration.defaultText }),
  ...(declaration.flag === false ? {} : { flag: declaration.flag ?? words(id).join("-") }),
  aliases: declaration.aliases ?? [],
  flagTakesValue: declaration.flagTakesValue ?? false,
  ...(declaration.negation === undefined ? {} : { negation: declaration.negation }),
  negationAliases: declaration.negationAliases ?? [],
  repeatable: declaration.repeatable ?? false,
  ...(declaration.ini === false ? {} : { ini: declaration.ini ?? words(id).join("_") }),
  iniAliases: declaration.iniAliases ?? [],
  engine: declaration.engine ?? false,
  ...(declaration.env === undefined ? {} : { env: declaration.env })
})

/** The default of `setting` for `program`, if any. */
export const defaultFor = <A>(setting: Setting<A>, program: Program): A | undefined =>
  setting.programDefaults?.[program] ?? setting.default

/** Every spelling of the setting's flags, dashes included: `--model`, `-m`, `--no-python`. */
export const flagSpellings = <A>(setting: Setting<A>): ReadonlyArray<string> => [
  ...(setting.flag === undefined ? [] : [`--${setting.flag}`, ...setting.aliases]),
  ...(setting.negation === undefined ? [] : [`--${setting.negation}`, ...setting.negationAliases])
]
