/**
 * Scans the library's source for what must exist once: each small helper has
 * one definition, and the idioms they replace are not written inline again.
 */
import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const srcDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../src")

interface Source {
  /** Path under `src/`, with forward slashes. */
  readonly file: string
  readonly text: string
  /** The text with comments blanked, so prose that names an idiom is not taken for code. */
  readonly code: string
}

/** Blanks `//` and block comments, keeping strings and line numbers (a rough scan, enough for our own style). */
const withoutComments = (text: string): string =>
  text.replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, " ")).replace(/(^|[^:"'`\\])\/\/[^\n]*/g, "$1")

const sources: ReadonlyArray<Source> = readdirSync(srcDir, { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith(".ts"))
  .map((file) => {
    const text = readFileSync(path.join(srcDir, file), "utf8")
    return { file: file.split(path.sep).join("/"), text, code: withoutComments(text) }
  })

/** The files whose code matches `pattern`. */
const filesMatching = (pattern: RegExp): ReadonlyArray<string> =>
  sources.filter((source) => pattern.test(source.code)).map((source) => source.file).sort()

const definitionOf = (name: string): RegExp => new RegExp(`\\b(?:const|function|let)\\s+${name}\\b`)

describe("one definition of each small helper", () => {
  it("finds the source tree", () => {
    expect(sources.length).toBeGreaterThan(100)
  })

  const helpers: ReadonlyArray<readonly [string, string]> = [
    ["isObject", "domain/json.ts"],
    ["parseJson", "domain/json.ts"],
    ["errorText", "domain/errorText.ts"],
    ["errorCode", "domain/errorText.ts"],
    ["networkErrorText", "domain/errorText.ts"],
    ["utf8Length", "domain/utf8.ts"],
    ["splitWords", "domain/words.ts"],
    ["writeFileAtomically", "layers/files/atomicWrite.ts"],
    ["answerRoutingFailures", "apps/server/ApiError.ts"]
  ]
  for (const [name, home] of helpers) {
    it(`${name} is defined once, in ${home}`, () => {
      expect(filesMatching(definitionOf(name))).toEqual([home])
    })
  }

  for (const name of ["isRecord", "isJsonObject", "codeOf", "utf8Bytes", "byteLength", "causeText"]) {
    it(`no copy under another name: ${name}`, () => {
      expect(filesMatching(definitionOf(name))).toEqual([])
    })
  }
})

describe("the idioms the helpers replace are not written inline", () => {
  it("an error's text: only errorText reads `error instanceof Error ? error.message`", () => {
    expect(filesMatching(/instanceof Error \? [\w.]+\.message/)).toEqual(["domain/errorText.ts"])
  })

  it("JSON text is parsed only by parseJson", () => {
    expect(filesMatching(/JSON\.parse\(/)).toEqual(["domain/json.ts"])
  })

  it("a JSON object is recognised only by isObject", () => {
    expect(filesMatching(/typeof (\w+) === "object" && \1 !== null && !Array\.isArray\(\1\)/)).toEqual(["domain/json.ts"])
  })

  it("UTF-8 sizes come from utf8Length", () => {
    expect(filesMatching(/Buffer\.byteLength\(/)).toEqual(["domain/utf8.ts"])
  })

  it("a file is renamed into place only by writeFileAtomically", () => {
    expect(filesMatching(/\brename\(/)).toEqual(["layers/files/atomicWrite.ts"])
  })

  it("a missing route and a defect are answered by one pipeline", () => {
    expect(filesMatching(/"RouteNotFound"/)).toEqual(["apps/server/ApiError.ts"])
    expect(filesMatching(/"request failed unexpectedly"/)).toEqual(["apps/server/ApiError.ts"])
  })
})

describe("the domain is pure data and rules", () => {
  const domain = sources.filter((source) => source.file.startsWith("domain/"))

  it("scans the domain", () => {
    expect(domain.length).toBeGreaterThan(20)
  })

  it("imports no node: module", () => {
    expect(domain.filter((source) => /from "node:|import\("node:|require\("node:/.test(source.code)).map((source) => source.file))
      .toEqual([])
  })

  it("writes no terminal escape sequence", () => {
    const escape = /\\u001b|\\x1b|\\u\{1b\}|\\033|\u001b/i
    expect(domain.filter((source) => escape.test(source.text)).map((source) => source.file)).toEqual([])
  })

  it("neither renders a plan nor formats an entry file", () => {
    expect(filesMatching(definitionOf("renderPlan\\w*")).filter((file) => file.startsWith("domain/"))).toEqual([])
    expect(filesMatching(definitionOf("(?:renderEntry|parseEntry|headerLine|appendMessage)")).filter((file) => file.startsWith("domain/")))
      .toEqual([])
  })
})

describe("small modules", () => {
  it("no source file is over 400 lines", () => {
    const long = sources
      .map((source) => ({ file: source.file, lines: source.text.split("\n").length - (source.text.endsWith("\n") ? 1 : 0) }))
      .filter((source) => source.lines > 400)
    expect(long).toEqual([])
  })
})

describe("manifest and skill problems are typed errors", () => {
  it("parseManifest and parseSkillFile fail with ManifestError and SkillError, not bare strings", () => {
    const signatures = sources.filter((source) => /export const parse(?:Manifest|SkillFile|SkillTools) = /.test(source.code))
    expect(signatures.map((source) => source.file).sort()).toEqual([
      "layers/tools/external/manifest.ts",
      "layers/workspace/skillFile.ts",
      "layers/workspace/skillTools.ts"
    ])
    for (const source of signatures) {
      const start = source.code.search(/export const parse(?:Manifest|SkillFile|SkillTools) = /)
      const signature = source.code.slice(start, source.code.indexOf("=>", start))
      expect(signature).toMatch(/\): Either\.Either<\w+, (?:ManifestError|SkillError)>/)
    }
  })
})

describe("one module decides which built-in tools a stack has", () => {
  it("only toolset.ts takes the built-in tools (index.ts re-exports them for users)", () => {
    const importsTool = /import \{[^}]*\b(?:datetime|planTool|webTools|systemTools|toolLookup|fsTools|knowledgeTools|bash|evaluate)\b[^}]*\} from/
    expect(filesMatching(importsTool).filter((file) => file !== "index.ts")).toEqual(["layers/tools/toolset.ts"])
  })

  it("registers tool_lookup and the defaults through the toolset, not by name", () => {
    expect(filesMatching(/\bdefaultTools\(/).filter((file) => file !== "layers/tools/toolset.ts")).toEqual(["layers/session/SessionStack.ts"])
    expect(filesMatching(/\bclosingTools\(/).filter((file) => file !== "layers/tools/toolset.ts")).toEqual(["layers/session/SessionLive.ts"])
  })
})
