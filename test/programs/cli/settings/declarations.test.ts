/**
 * Every declaration, through the real resolver: its flag, its INI key (in
 * every section it may stand in), its environment variable, the one
 * precedence (flag > [MODEL_<pattern>] > the program's section > [ENGINE] >
 * environment > default) and a bad value, refused in one line naming where
 * it came from.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Option } from "effect"
import { writeFileSync } from "node:fs"
import * as path from "node:path"
import { declaration, describeOrigin, type FlagValue, type Id, ids, resolve } from "../../../../src/programs/cli/settings/resolve.js"
import { type Program, programSection } from "../../../../src/programs/cli/settings/Setting.js"
import { tempDir } from "../../../support/tempDir.js"

/** The sources one resolve is given. */
interface Sources {
  readonly flag?: string
  readonly model?: string
  readonly own?: string
  readonly engine?: string
  readonly env?: string
}

/** The model every engine-setting case loads: its name matches `[MODEL_sample]`. */
const modelPath = "/nonexistent/sample-model.gguf"

const resolveWith = (id: Id, program: Program, sources: Sources) =>
  Effect.gen(function*() {
    const setting = declaration(id)
    const dir = tempDir("easyai-settings-")
    const key = setting.ini ?? ""
    const sections = [
      ...(sources.model === undefined ? [] : [`[MODEL_sample]`, `${key} = ${sources.model}`]),
      ...(sources.own === undefined ? [] : [`[${programSection[program]}]`, `${key} = ${sources.own}`]),
      ...(sources.engine === undefined ? [] : ["[ENGINE]", `${key} = ${sources.engine}`])
    ]
    if (sections.length > 0) writeFileSync(path.join(dir, "easyai.ini"), sections.join("\n") + "\n")
    const flags = new Map<Id, FlagValue>()
    if (sources.flag !== undefined) flags.set(id, { flag: `--${setting.flag ?? setting.negation}`, text: sources.flag })
    if (id !== "model" && setting.programs.includes(program) && declaration("model").programs.includes(program)) {
      flags.set("model", { flag: "--model", text: modelPath })
    }
    const env = new Map(setting.env === undefined || sources.env === undefined ? [] : [[setting.env, sources.env] as const])
    return yield* resolve(program, flags, dir).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(env)), Effect.either)
  })

const originOf = (id: Id, resolved: Either.Either<{ readonly values: ReadonlyMap<Id, { readonly origin: Parameters<typeof describeOrigin>[0] }> }, unknown>) =>
  Either.match(resolved, {
    onLeft: (error) => `failed: ${String(error)}`,
    onRight: (settings) => Option.match(Option.fromNullable(settings.values.get(id)), { onNone: () => "unset", onSome: (value) => describeOrigin(value.origin) })
  })

/** The text a flag gives: `on`/`off` for a switch or a negation, else the sample. */
const flagText = (id: Id): string | undefined => {
  const setting = declaration(id)
  if (setting.flag === undefined) return setting.negation === undefined ? undefined : "off"
  return setting.codec.metavar === "on|off" && !setting.flagTakesValue ? "on" : setting.codec.sample[0]
}

describe("every setting", () => {
  it("has a doc line, a program, and a flag, an INI key or a variable", () => {
    for (const id of ids) {
      const setting = declaration(id)
      expect(setting.doc, id).toMatch(/^[A-Z].*\.$/)
      expect(setting.doc.includes("\n"), id).toBe(false)
      expect(setting.programs.length, id).toBeGreaterThan(0)
      expect(setting.flag ?? setting.negation ?? setting.ini ?? setting.env, id).toBeDefined()
    }
  })

  it("has flag spellings no other setting of its programs has", () => {
    for (const program of ["chat", "serve", "mcp", "tools", "remote"] as const) {
      const seen = new Map<string, Id>()
      for (const id of ids.filter((each) => declaration(each).programs.includes(program))) {
        const setting = declaration(id)
        const spellings = [
          ...(setting.flag === undefined ? [] : [`--${setting.flag}`, ...setting.aliases]),
          ...(setting.negation === undefined ? [] : [`--${setting.negation}`, ...setting.negationAliases])
        ].map((spelling) => spelling.replace(/^-+/, "").toLowerCase())
        // `-ngl` and `--ngl` are one spelling to the parser: count each once per setting.
        for (const spelling of new Set(spellings)) {
          expect(seen.get(spelling), `${program}: ${spelling} of ${id}`).toBeUndefined()
          seen.set(spelling, id)
        }
      }
    }
  })

  for (const id of ids) {
    const setting = declaration(id)
    for (const program of setting.programs) {
      it.effect(`${id} in ${program}: flag, INI, env, precedence and a bad value`, () =>
        Effect.gen(function*() {
          const valid = setting.codec.sample[0]
          const text = flagText(id)
          const section = programSection[program]
          // Each source on its own, then all of them: the highest one wins.
          const sources: Array<readonly [Sources, string]> = []
          if (text !== undefined && id !== "config") sources.push([{ flag: text }, `--${setting.flag ?? setting.negation}`])
          if (setting.engine && id !== "model") sources.push([{ model: valid }, "easyai.ini:2 [MODEL_sample]"])
          if (setting.ini !== undefined) sources.push([{ own: valid }, `easyai.ini:2 [${section}]`])
          if (setting.engine) sources.push([{ engine: valid }, "easyai.ini:2 [ENGINE]"])
          if (setting.env !== undefined && id !== "config") sources.push([{ env: valid }, `env ${setting.env}`])
          for (const [source, origin] of sources) expect(originOf(id, yield* resolveWith(id, program, source)), JSON.stringify(source)).toBe(origin)
          for (let first = 0; first < sources.length; first++) {
            const all = Object.assign({}, ...sources.slice(first).map(([source]) => source)) as Sources // boundary: merging the single-source records
            const expected = sources[first]?.[1] ?? ""
            // Lines move as sections stack up: compare the source, not the line.
            expect(originOf(id, yield* resolveWith(id, program, all)).replace(/:\d+ /, " "), JSON.stringify(all)).toBe(expected.replace(/:\d+ /, " "))
          }
          // Nothing set: the default, or unset.
          const fallback = originOf(id, yield* resolveWith(id, program, {}))
          expect(fallback, "nothing set").toBe(setting.default !== undefined || setting.programDefaults?.[program] !== undefined ? "default" : "unset")
          // A bad value: one line naming the flag, else the file, line and key, else the variable.
          const invalid = setting.codec.sample[1]
          const bad: Sources | undefined = setting.flag !== undefined && text === valid
            ? { flag: invalid }
            : setting.ini !== undefined
            ? { own: invalid }
            : setting.env !== undefined
            ? { env: invalid }
            : undefined
          if (bad === undefined) {
            // A switch with no INI key or variable: a flag that takes no value has no bad value.
            expect(setting.codec.metavar, id).toBe("on|off")
            return
          }
          const refused = yield* resolveWith(id, program, bad)
          expect(Either.isLeft(refused), JSON.stringify(bad)).toBe(true)
          const message = Either.match(refused, { onLeft: (error) => error.message, onRight: () => "" })
          expect(message.split("\n"), message).toHaveLength(1)
          const where = bad.flag !== undefined
            ? `--${setting.flag}: `
            : bad.own !== undefined
            ? `easyai.ini:2: [${section}] ${setting.ini}: `
            : `${setting.env}: `
          expect(message.startsWith(where), message).toBe(true)
        }))
    }
  }
})
