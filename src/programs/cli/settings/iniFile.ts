/**
 * Reading `easyai.ini`: sections, `key = value` entries and the line each
 * stands on, in one pass. The `ini` package reads each value (quotes,
 * escapes, trailing `;`/`#` comments); the pass keeps what the package
 * does not: the line numbers errors name, and section names with dots
 * (`[MODEL_Qwen2.5]`) whole.
 *
 * ```ini
 * [ENGINE]            ; how local models load and sample, for every program
 * temperature = 0.2
 * [MODEL_Qwen3-Coder] ; over [ENGINE] for models whose name contains Qwen3-Coder
 * temperature = 0.4
 * [SERVER]            ; easyai serve     ([cli]: the chat; [MCP]: easyai mcp)
 * api_key = "s3cret;with;semicolons"
 * stop[] = ###        ; key[] lines make a list
 * ```
 *
 * @module
 */
import { Effect, Option, Schema } from "effect"
import ini from "ini"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { errorCode, errorText } from "../../../domain/errorText.js"

/** A setting that cannot be used, wherever it came from: one line naming the flag, file:line or variable. */
export class SettingsError extends Schema.TaggedError<SettingsError>()("SettingsError", {
  /** Where: `--temperature`, `easyai.ini:3: [ENGINE] temperature`, `EASYAI_TIMEOUT`, `easyai.ini`. */
  source: Schema.String,
  /** What is wrong and what is allowed. */
  detail: Schema.String
}) {
  override get message(): string {
    return `${this.source}: ${this.detail}`
  }
}

/** One `key = value` line. */
export interface IniEntry {
  /** The section as written, without brackets; empty before any section. */
  readonly section: string
  /** The key as written, without a trailing `[]`. */
  readonly key: string
  readonly value: string
  /** 1-based. */
  readonly line: number
  /** Written `key[] = …`: one item of a list. */
  readonly item: boolean
}

/** A section header. */
export interface IniSection {
  readonly name: string
  readonly line: number
}

/** A settings file, read. */
export interface IniFile {
  /** As named (or `easyai.ini` found in the working directory). */
  readonly file: string
  /** Its directory: relative paths in it are taken from there. */
  readonly base: string
  readonly sections: ReadonlyArray<IniSection>
  readonly entries: ReadonlyArray<IniEntry>
}

/** The file looked for in the working directory when none is named. */
export const defaultFileName = "easyai.ini"

const header = /^\s*\[([^\]]*)\]\s*(?:[;#].*)?$/
const comment = /^\s*(?:[;#].*)?$/

/** The value's text: a quoted value is read up to its closing quote, so a `;` inside stays. */
const valueOf = (raw: string): string => {
  const trimmed = raw.trim()
  const quote = trimmed[0]
  if (quote === "\"" || quote === "'") {
    const end = trimmed.indexOf(quote, 1)
    if (end > 0) return ini.unsafe(trimmed.slice(0, end + 1))
  }
  return ini.unsafe(trimmed)
}

/** `where: detail` for a line of `file`. */
const at = (file: string, line: number, detail: string) => new SettingsError({ source: `${file}:${line}`, detail })

/** Reads the text of a settings file; `file` names it in errors, `base` anchors its relative paths. */
export const parseIni = (text: string, file: string, base: string): Effect.Effect<IniFile, SettingsError> =>
  Effect.gen(function*() {
    const sections: Array<IniSection> = []
    const entries: Array<IniEntry> = []
    let section = ""
    const lines = (text.startsWith("\uFEFF") ? text.slice(1) : text).split(/\r\n|\r|\n/)
    for (const [index, line] of lines.entries()) {
      const number = index + 1
      if (comment.test(line)) continue
      const named = header.exec(line)
      if (named !== null) {
        section = ini.unsafe((named[1] ?? "").trim())
        sections.push({ name: section, line: number })
        continue
      }
      const equals = line.indexOf("=")
      if (equals <= 0) return yield* at(file, number, `expected key = value or [section], got ${JSON.stringify(line.trim())}`)
      const written = ini.unsafe(line.slice(0, equals).trim())
      const item = written.length > 2 && written.endsWith("[]")
      entries.push({ section, key: item ? written.slice(0, -2) : written, value: valueOf(line.slice(equals + 1)), line: number, item })
    }
    return { file, base, sections, entries }
  })

const isNotFound = (cause: unknown): boolean => errorCode(cause) === "ENOENT"

/**
 * The settings file: `named` when given (relative to `cwd`; it must exist),
 * else `<cwd>/easyai.ini` when there is one, else none.
 */
export const readIni = (named: Option.Option<string>, cwd: string): Effect.Effect<Option.Option<IniFile>, SettingsError> =>
  Effect.gen(function*() {
    const file = Option.getOrElse(named, () => defaultFileName)
    const absolute = path.resolve(cwd, file)
    const text = yield* Effect.tryPromise({
      try: () => fs.readFile(absolute, "utf8").then(Option.some, (cause: unknown) => (isNotFound(cause) ? Option.none() : Promise.reject(cause))),
      catch: (cause) => new SettingsError({ source: file, detail: `cannot be read (${errorText(cause)})` })
    })
    if (Option.isNone(text)) {
      return Option.isSome(named) ? yield* new SettingsError({ source: file, detail: "no such file" }) : Option.none()
    }
    return Option.some(yield* parseIni(text.value, file, path.dirname(absolute)))
  })
