/**
 * The library never reaches up into the programs: `src/programs/` holds the
 * CLI's entry points and wires the library, so a file anywhere else under
 * `src/` that imports from it would make the library depend on a program.
 */
import { describe, expect, it } from "@effect/vitest"
import { readdirSync, readFileSync } from "node:fs"
import * as path from "node:path"
import ts from "typescript"
import { projectRoot } from "../support/process.js"

const sourceRoot = path.join(projectRoot, "src")
const programsRoot = path.join(sourceRoot, "programs")

const sourceFiles = (folder: string): ReadonlyArray<string> =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name)
    if (entry.isDirectory()) return sourceFiles(full)
    return /\.tsx?$/.test(entry.name) ? [full] : []
  })

/** Every relative import, export-from and dynamic import in `text` (the source of `file`), resolved to an absolute path. */
const importedPaths = (file: string, text: string): ReadonlyArray<string> =>
  ts.preProcessFile(text, true, true).importedFiles
    .map((reference) => reference.fileName)
    .filter((specifier) => specifier.startsWith("."))
    .map((specifier) => path.resolve(path.dirname(file), specifier))

const isUnder = (folder: string, file: string) => !path.relative(folder, file).startsWith("..")

/** The imports of the library files that land in `src/programs/`, as `file -> specifier target`. */
const upwardImports = (): ReadonlyArray<string> =>
  sourceFiles(sourceRoot)
    .filter((file) => !isUnder(programsRoot, file))
    .flatMap((file) =>
      importedPaths(file, readFileSync(file, "utf8"))
        .filter((target) => isUnder(programsRoot, target))
        .map((target) => `${path.relative(projectRoot, file)} -> ${path.relative(projectRoot, target)}`)
    )

describe("module boundaries", () => {
  it("no file under src/ outside src/programs/ imports from src/programs/", () => {
    expect(upwardImports()).toEqual([])
  })

  it("the scan sees imports, re-exports and dynamic imports", () => {
    const probe = path.join(sourceRoot, "layers", "probe.ts")
    const text = [
      `import { a } from "../programs/cli/main.js"`,
      `export * from "../programs/version.js"`,
      `const b = await import("../programs/cli/repl.js")`,
      `import { c } from "../domain/errors.js"`
    ].join("\n")
    const found = importedPaths(probe, text).filter((target) => isUnder(programsRoot, target))
    expect(found.map((target) => path.relative(sourceRoot, target))).toEqual([
      "programs/cli/main.js",
      "programs/version.js",
      "programs/cli/repl.js"
    ])
  })
})
