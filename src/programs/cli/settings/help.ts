/**
 * `--help`, rendered from the declarations: one line per setting, grouped
 * by topic, with its default and variable. Bold headings on a terminal
 * only, and never under `NO_COLOR`.
 *
 * @module
 */
import { declaration, ids } from "./resolve.js"
import { defaultFor, type Program, programSection, type Setting, topics, topicTitle } from "./Setting.js"
import { takesValue } from "./options.js"

/** A command as help lists it. */
export interface HelpEntry {
  readonly name: string
  readonly description: string
}

/** What help is rendered for. */
export interface HelpSubject {
  /** As typed: `easyai`, `easyai serve`. */
  readonly command: string
  readonly description: string
  readonly program: Program
  /** Listed under "Commands" (the root's subcommands). */
  readonly commands?: ReadonlyArray<HelpEntry>
  /** Positional arguments, as the usage line shows them (`NAME`). */
  readonly arguments?: string
  /** Flags of the command that are no settings (`easyai config`'s `--json`). */
  readonly extraFlags?: ReadonlyArray<HelpEntry>
}

/** Whether to colour text for `stream`: a terminal, and no `NO_COLOR`. */
export const colourFor = (stream: { readonly isTTY?: boolean }): boolean =>
  stream.isTTY === true && (process.env["NO_COLOR"] ?? "") === ""

/** The flag column of a setting: its flag with a one-letter alias, and its negation. */
export const flagColumn = (setting: Setting<unknown>): string => {
  const short = setting.aliases.filter((alias) => /^-[A-Za-z]$/.test(alias))
  const main = setting.flag === undefined
    ? []
    : [[...short, `--${setting.flag}`].join(", ") + (takesValue(setting) ? ` ${setting.codec.metavar}` : "")]
  return [...main, ...(setting.negation === undefined ? [] : [`--${setting.negation}`])].join(", ")
}

/** The default as help and docs show it; empty when there is none worth saying. */
export const defaultText = (setting: Setting<unknown>, program?: Program): string => {
  if (setting.defaultText !== undefined) return setting.defaultText
  const value = program === undefined ? setting.default : defaultFor(setting, program)
  if (value === undefined) return ""
  if (program === undefined && setting.programDefaults !== undefined) {
    return Object.entries(setting.programDefaults).map(([name, each]) => `${setting.codec.show(each)} (${name})`).join(", ")
  }
  return setting.codec.show(value)
}

const describe = (setting: Setting<unknown>, program: Program): string => {
  const fallback = defaultText(setting, program)
  const isSwitchOff = setting.codec.metavar === "on|off" && !takesValue(setting) && fallback === "off"
  const notes = [
    ...(fallback === "" || isSwitchOff || setting.negation !== undefined ? [] : [`default: ${fallback}`]),
    ...(setting.env === undefined ? [] : [`$${setting.env}`])
  ]
  return notes.length === 0 ? setting.doc : `${setting.doc} (${notes.join("; ")})`
}

const table = (rows: ReadonlyArray<readonly [string, string]>, width: number): ReadonlyArray<string> =>
  rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`)

/** The help text of `subject`. */
export const renderHelp = (subject: HelpSubject, colour: boolean): string => {
  const heading = (text: string) => (colour ? `\u001b[1m${text}\u001b[22m` : text)
  const settings = ids.map(declaration).filter((setting) => setting.programs.includes(subject.program) && flagColumn(setting) !== "")
  const commands = subject.commands ?? []
  const width = Math.min(32, Math.max(...settings.map((setting) => flagColumn(setting).length), ...commands.map((entry) => entry.name.length)))
  const lines: Array<string> = [
    `${subject.command} — ${subject.description}`,
    `${heading("Usage:")} ${subject.command}${commands.length > 0 ? " [COMMAND]" : ""} [FLAGS]${subject.arguments === undefined ? "" : ` ${subject.arguments}`}`
  ]
  if (commands.length > 0) {
    lines.push("", heading("Commands"), ...table(commands.map((entry) => [entry.name, entry.description] as const), width))
  }
  for (const topic of topics) {
    const here = settings.filter((setting) => setting.topic === topic)
    if (here.length === 0) continue
    lines.push("", heading(topicTitle[topic]), ...table(here.map((setting) => [flagColumn(setting), describe(setting, subject.program)] as const), width))
  }
  if (subject.extraFlags !== undefined) {
    lines.push("", heading("This command"), ...table(subject.extraFlags.map((entry) => [entry.name, entry.description] as const), width))
  }
  const section = programSection[subject.program]
  lines.push(
    "",
    `Settings: flag > easyai.ini [MODEL_<pattern>] > [${section}] > [ENGINE] > environment > default (easyai config shows them).`
  )
  return lines.join("\n")
}
