/**
 * `easyai config [COMMAND] [FLAGS…]`: the settings that command line runs
 * with and where each came from (a flag, `file:line`, the environment, the
 * default), as a table or `--json`. With `--check` it also loads the
 * external tool manifests and the skills, and exits 1 on any problem (a
 * bad settings file already exits 2).
 *
 * @module
 */
import { Console, Effect, Option } from "effect"
import { ConfigurationError } from "../../domain/errors.js"
import * as SandboxLive from "../../layers/sandbox/SandboxLive.js"
import { reportFailure } from "./failure.js"
import { type ParsedFlags, settingsFor } from "./settings/options.js"
import { declaration, describeOrigin, ids, type Resolved } from "./settings/resolve.js"
import type { Program } from "./settings/Setting.js"
import { toolProblems } from "./toolCheck.js"

/** One row: the setting's INI key (or flag), its value as written back, its origin. */
const rows = (settings: Resolved) =>
  ids.flatMap((id) => {
    const setting = declaration(id)
    if (!setting.programs.includes(settings.program)) return []
    const sourced = settings.values.get(id)
    return [{
      id,
      key: setting.ini ?? `--${setting.flag ?? id}`,
      value: sourced === undefined ? undefined : setting.codec.show(sourced.value),
      origin: sourced === undefined ? "unset" : describeOrigin(sourced.origin)
    }]
  })

const renderTable = (settings: Resolved): string => {
  const all = rows(settings)
  const width = Math.max(...all.map((row) => row.key.length))
  const valueWidth = Math.min(40, Math.max(...all.map((row) => (row.value ?? "-").length)))
  const file = Option.match(settings.file, { onNone: () => "no settings file", onSome: (ini) => `settings file ${ini.file}` })
  const profile = Option.match(settings.profile, { onNone: () => "", onSome: (pattern) => ` · [MODEL_${pattern}] applies` })
  return [
    `easyai config · ${settings.program} · ${file}${profile}`,
    ...all.map((row) => `  ${row.key.padEnd(width)}  ${(row.value ?? "-").padEnd(valueWidth)}  ${row.origin}`)
  ].join("\n")
}

const renderJson = (settings: Resolved): string =>
  JSON.stringify(
    {
      program: settings.program,
      file: Option.getOrNull(Option.map(settings.file, (ini) => ini.file)),
      profile: Option.getOrNull(settings.profile),
      settings: Object.fromEntries(rows(settings).map((row) => [row.id, { key: row.key, value: row.value ?? null, origin: row.origin }]))
    },
    null,
    2
  )

/** The external tools and skills the settings name, loaded as an agent would load them. */
const checkTools = (settings: Resolved) =>
  Effect.gen(function*() {
    const problems = yield* toolProblems(settings).pipe(Effect.provide(SandboxLive.layer({ root: settings.cwd, isolate: "off" })))
    for (const problem of problems) yield* Console.error(problem)
    if (problems.length > 0) return yield* new ConfigurationError({ message: `${problems.length} problem(s) found` })
  })

/** `easyai config`. */
export const config = (program: Program, flags: ParsedFlags, options: { readonly json: boolean; readonly check: boolean }) =>
  Effect.gen(function*() {
    const settings = yield* settingsFor(program, flags)
    yield* Console.log(options.json ? renderJson(settings) : renderTable(settings))
    if (options.check) yield* checkTools(settings)
  }).pipe(reportFailure("easyai config"))
