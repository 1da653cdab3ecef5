/**
 * The one precedence rule, for every setting of every program: a flag >
 * the matching `[MODEL_<pattern>]` > the program's section (`[cli]`,
 * `[SERVER]`, `[MCP]`) > `[ENGINE]` > the environment > the default. The
 * two engine sections count only for the settings that say so
 * (`Setting.engine`). Each value keeps where it came from, for
 * `easyai config` and for errors.
 *
 * @module
 */
import { Config, Effect, Either, Option } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { closestNames } from "../../../domain/closestNames.js"
import { settings } from "./declarations.js"
import { type IniEntry, type IniFile, readIni, SettingsError } from "./iniFile.js"
import { defaultFor, type Program, programs, programSection, type Setting } from "./Setting.js"

/** A setting's id. */
export type Id = keyof typeof settings

/** A setting's value type. */
export type ValueOf<K extends Id> = (typeof settings)[K] extends Setting<infer A> ? A : never

/** Every id, in declaration order. */
export const ids = Object.keys(settings) as ReadonlyArray<Id> // boundary: Object.keys widens to string; these are the record's keys

/** The declaration of `id`, typed loosely for code that walks them all. */
export const declaration = (id: Id): Setting<unknown> =>
  // boundary: every declaration reads and shows its own type; walking them all needs one type
  settings[id] as unknown as Setting<unknown>

/** Where a value came from. */
export type Origin =
  | { readonly _tag: "Flag"; readonly flag: string }
  | { readonly _tag: "File"; readonly file: string; readonly line: number; readonly section: string }
  | { readonly _tag: "Env"; readonly name: string }
  | { readonly _tag: "Default" }

/** `--ctx`, `easyai.ini:3 [ENGINE]`, `env EASYAI_URL`, `default`. */
export const describeOrigin = (origin: Origin): string => {
  switch (origin._tag) {
    case "Flag":
      return origin.flag
    case "File":
      return `${origin.file}:${origin.line} [${origin.section}]`
    case "Env":
      return `env ${origin.name}`
    case "Default":
      return "default"
  }
}

/** A value and its origin. */
export interface Sourced<A> {
  readonly value: A
  readonly origin: Origin
}

/** The settings of one command line. */
export interface Resolved {
  readonly program: Program
  /** The settings file read, if any. */
  readonly file: Option.Option<IniFile>
  /** The `[MODEL_<pattern>]` that applied, if any. */
  readonly profile: Option.Option<string>
  readonly values: ReadonlyMap<Id, Sourced<unknown>>
  /** The working directory relative flags and variables were read from. */
  readonly cwd: string
}

/** The value of `id`, or none when nothing set it and it has no default. */
export const get = <K extends Id>(resolved: Resolved, id: K): ValueOf<K> | undefined =>
  // boundary: the map holds what `settings[id]`'s own codec decoded
  resolved.values.get(id)?.value as ValueOf<K> | undefined

/** The value of `id` as an Option. */
export const option = <K extends Id>(resolved: Resolved, id: K): Option.Option<ValueOf<K>> => Option.fromNullable(get(resolved, id))

/** Whether `program` takes `id`. */
export const takes = (program: Program, id: Id): boolean => declaration(id).programs.includes(program)

/** A flag's text as given: `on` for a switch, `off` for a negation, the values joined for a repeatable flag. */
export interface FlagValue {
  readonly flag: string
  readonly text: string
}

// ---------------------------------------------------------------------------
// The file's sections and keys

const modelPrefix = "model_"

type SectionKind = { readonly _tag: "Engine" } | { readonly _tag: "Model"; readonly pattern: string } | { readonly _tag: "Program"; readonly name: "cli" | "SERVER" | "MCP" }

const programSections = ["cli", "SERVER", "MCP"] as const

const kindOf = (name: string): SectionKind | undefined => {
  const lower = name.toLowerCase()
  if (lower === "engine") return { _tag: "Engine" }
  if (lower.startsWith(modelPrefix) && name.length > modelPrefix.length) return { _tag: "Model", pattern: name.slice(modelPrefix.length) }
  const program = programSections.find((section) => section.toLowerCase() === lower)
  return program === undefined ? undefined : { _tag: "Program", name: program }
}

const iniKeys = (setting: Setting<unknown>): ReadonlyArray<string> => (setting.ini === undefined ? [] : [setting.ini, ...setting.iniAliases])

/** The settings a section may set: engine ones in `[ENGINE]`/`[MODEL_…]`, those of a program reading it in its own. */
const keysOf = (kind: SectionKind): ReadonlyArray<Id> =>
  ids.filter((id) => {
    const setting = declaration(id)
    if (setting.ini === undefined) return false
    if (kind._tag !== "Program") return setting.engine
    return setting.programs.some((program) => programSection[program] === kind.name)
  })

const suggest = (wanted: string, known: ReadonlyArray<string>): string => {
  const [best] = closestNames(wanted, known, 1)
  return best === undefined ? "" : ` (did you mean ${best}?)`
}

/** Refuses what the file sets that no program takes there: an unknown section or key is an error, never ignored. */
export const checkFile = (file: IniFile): Either.Either<void, SettingsError> => {
  const fail = (line: number, detail: string) => Either.left(new SettingsError({ source: `${file.file}:${line}`, detail }))
  for (const section of file.sections) {
    if (kindOf(section.name) === undefined) {
      const hint = section.name.toLowerCase().startsWith("model")
        ? " (did you mean [MODEL_<pattern>]?)"
        : suggest(section.name, ["ENGINE", ...programSections]).replace(/mean (.*)\?/, "mean [$1]?")
      return fail(section.line, `[${section.name}] is not a section: use [ENGINE], [MODEL_<pattern>], [cli], [SERVER] or [MCP]${hint}`)
    }
  }
  for (const entry of file.entries) {
    if (entry.section === "") return fail(entry.line, `${entry.key} is outside any section`)
    const kind = kindOf(entry.section)
    if (kind === undefined) continue
    const known = keysOf(kind)
    if (!known.some((id) => iniKeys(declaration(id)).includes(entry.key.toLowerCase()))) {
      const names = known.map((id) => declaration(id).ini ?? "")
      const elsewhere = ids.filter((id) => iniKeys(declaration(id)).includes(entry.key.toLowerCase()))
      const where = elsewhere.length === 0 ? suggest(entry.key, names) : ` (${entry.key} belongs in ${sectionsFor(declaration(elsewhere[0] ?? "config"))})`
      return fail(entry.line, `[${entry.section}] ${entry.key} is not a setting of this section${where}`)
    }
  }
  // Every value is checked, the other programs' too: a bad line is never left for later.
  for (const id of ids) {
    const setting = declaration(id)
    for (const section of file.sections) {
      const kind = kindOf(section.name)
      if (kind === undefined || !keysOf(kind).includes(id)) continue
      const candidate = entriesIn(file, setting, isSection(section.name))
      if (Option.isNone(candidate)) continue
      const decoded = decode(setting, candidate.value)
      if (Either.isLeft(decoded)) return Either.left(decoded.left)
    }
  }
  return Either.right(undefined)
}

const sectionsFor = (setting: Setting<unknown>): string => {
  const own = [...new Set(setting.programs.map((program) => `[${programSection[program]}]`))]
  return [...(setting.engine ? ["[ENGINE]", "[MODEL_<pattern>]"] : []), ...own].join(" or ")
}

// ---------------------------------------------------------------------------
// Model profiles

/** A file extension such as `.gguf`; `Llama-3.1-8B` or `model.Q4_K_M` keep their dots. */
const extensionPattern = /^\.[A-Za-z][A-Za-z0-9]*$/

/** The name a model is matched by: base name, minus an extension. */
export const modelName = (modelPath: string): string => {
  const base = path.basename(modelPath)
  const extension = path.extname(base)
  return extensionPattern.test(extension) ? base.slice(0, -extension.length) : base
}

/** The `[MODEL_<pattern>]` whose pattern is the longest one contained in `name`, ignoring case; the first of equals. */
export const bestProfile = (patterns: ReadonlyArray<string>, name: string): Option.Option<string> => {
  const wanted = name.toLowerCase()
  return Option.fromNullable(
    patterns.reduce<string | undefined>(
      (best, pattern) => (wanted.includes(pattern.toLowerCase()) && (best === undefined || pattern.length > best.length) ? pattern : best),
      undefined
    )
  )
}

// ---------------------------------------------------------------------------
// Resolving

/** The candidate texts of one setting, highest precedence first. */
interface Candidate {
  readonly text: string
  readonly origin: Origin
  /** What an error names: the flag, `file:line: [section] key`, or the variable. */
  readonly source: string
  readonly base: string
}

const fromEntries = (file: IniFile, entries: ReadonlyArray<IniEntry>): Option.Option<Candidate> => {
  const last = entries.at(-1)
  if (last === undefined) return Option.none()
  // `key[] = …` lines make one list; otherwise the last assignment wins.
  const text = last.item ? entries.filter((entry) => entry.item).map((entry) => entry.value).join(",") : last.value
  return Option.some({
    text,
    origin: { _tag: "File", file: file.file, line: last.line, section: last.section },
    source: `${file.file}:${last.line}: [${last.section}] ${last.key}`,
    base: file.base
  })
}

const entriesIn = (file: IniFile, setting: Setting<unknown>, matches: (section: string) => boolean) =>
  fromEntries(file, file.entries.filter((entry) => matches(entry.section) && iniKeys(setting).includes(entry.key.toLowerCase())))

const isSection = (name: string) => (section: string) => section.toLowerCase() === name.toLowerCase()

const decode = (setting: Setting<unknown>, candidate: Candidate): Either.Either<Sourced<unknown>, SettingsError> =>
  Either.match(setting.codec.decode(candidate.text, candidate.base), {
    onLeft: (detail) => Either.left(new SettingsError({ source: candidate.source, detail })),
    onRight: (value) => Either.right({ value, origin: candidate.origin })
  })

/** The variable's text; blank counts as unset, so an exported but empty variable turns nothing on. */
const envText = (name: string) =>
  Config.string(name).pipe(Config.option, Effect.map(Option.filter((text) => text.trim() !== "")), Effect.orElseSucceed(() => Option.none()))

/** The candidates of `id`, highest precedence first. */
const candidates = (
  id: Id,
  program: Program,
  flags: ReadonlyMap<Id, FlagValue>,
  file: Option.Option<IniFile>,
  profile: Option.Option<string>,
  cwd: string
) =>
  Effect.gen(function*() {
    const setting = declaration(id)
    const found: Array<Candidate> = []
    const flag = flags.get(id)
    if (flag !== undefined) found.push({ text: flag.text, origin: { _tag: "Flag", flag: flag.flag }, source: flag.flag, base: cwd })
    if (Option.isSome(file)) {
      const ini = file.value
      const engine = setting.engine
      const model = Option.flatMap(Option.filter(profile, () => engine), (pattern) => entriesIn(ini, setting, isSection(`MODEL_${pattern}`)))
      const own = entriesIn(ini, setting, isSection(programSection[program]))
      const shared = engine ? entriesIn(ini, setting, isSection("ENGINE")) : Option.none()
      for (const candidate of [model, own, shared]) if (Option.isSome(candidate)) found.push(candidate.value)
    }
    if (setting.env !== undefined) {
      const name = setting.env
      const text = yield* envText(name)
      if (Option.isSome(text)) found.push({ text: text.value, origin: { _tag: "Env", name }, source: name, base: cwd })
    }
    return found
  })

/** The settings file the command line names: `--config`, else `EASYAI_CONFIG`, else `./easyai.ini` when it exists. */
const settingsFile = (flags: ReadonlyMap<Id, FlagValue>, cwd: string) =>
  Effect.gen(function*() {
    const flag = Option.fromNullable(flags.get("config"))
    const named = Option.isSome(flag)
      ? Option.some({ text: flag.value.text, source: flag.value.flag })
      : Option.map(yield* envText("EASYAI_CONFIG"), (text) => ({ text, source: "EASYAI_CONFIG" }))
    // The name is checked as any value is, so a missing file is named by the flag or the variable that gave it.
    if (Option.isSome(named)) {
      const checked = settings.config.codec.decode(named.value.text, cwd)
      if (Either.isLeft(checked)) return yield* new SettingsError({ source: named.value.source, detail: checked.left })
    }
    const file = yield* readIni(Option.map(named, (each) => each.text), cwd)
    if (Option.isSome(file)) {
      const checked = checkFile(file.value)
      if (Either.isLeft(checked)) return yield* checked.left
    }
    return file
  })

/** The model's name for `[MODEL_<pattern>]`: the file behind symbolic links, without its extension. */
const profileFor = (file: Option.Option<IniFile>, model: string | undefined) =>
  Effect.gen(function*() {
    if (Option.isNone(file) || model === undefined) return Option.none<string>()
    const real = yield* Effect.tryPromise(() => fs.realpath(model)).pipe(Effect.orElseSucceed(() => model))
    const patterns = file.value.sections.flatMap((section) => {
      const kind = kindOf(section.name)
      return kind?._tag === "Model" ? [kind.pattern] : []
    })
    return bestProfile(patterns, modelName(real))
  })

/**
 * The settings `program` runs with, from its flags (already checked to be
 * its own), the settings file and the environment (through the current
 * `ConfigProvider`).
 */
export const resolve = (program: Program, flags: ReadonlyMap<Id, FlagValue>, cwd: string = process.cwd()) =>
  Effect.gen(function*() {
    const file = yield* settingsFile(flags, cwd)
    const values = new Map<Id, Sourced<unknown>>()
    const settle = (id: Id, profile: Option.Option<string>) =>
      Effect.gen(function*() {
        const setting = declaration(id)
        const [first] = yield* candidates(id, program, flags, file, profile, cwd)
        if (first !== undefined) {
          const decoded = decode(setting, first)
          if (Either.isLeft(decoded)) return yield* decoded.left
          values.set(id, decoded.right)
          return
        }
        const fallback = defaultFor(setting, program)
        if (fallback !== undefined) values.set(id, { value: fallback, origin: { _tag: "Default" } })
      })
    const taken = ids.filter((id) => takes(program, id))
    // The model comes first: its name picks the `[MODEL_<pattern>]` every engine setting reads.
    if (taken.includes("model")) yield* settle("model", Option.none())
    const model = values.get("model")?.value
    const profile = yield* profileFor(file, typeof model === "string" ? model : undefined)
    for (const id of taken) if (id !== "model") yield* settle(id, profile)
    const resolved: Resolved = { program, file, profile, values, cwd }
    return resolved
  })

/** Every program that takes `id`, for messages. */
export const programsOf = (id: Id): ReadonlyArray<Program> => programs.filter((program) => takes(program, id))
