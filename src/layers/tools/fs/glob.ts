/**
 * `glob`: files under a directory whose path matches a glob pattern.
 *
 * @module
 */
import * as nodePath from "node:path"
import { Effect, Either, Schema } from "effect"
import type { ToolFailure } from "../../../domain/errors.js"
import * as Tool from "../../../domain/Tool.js"
import { define, type Env } from "./define.js"
import { guarded } from "./failures.js"
import { compileGlob } from "./globMatch.js"
import { globDefaultResults, globMaxResults, walkMaxFiles } from "./limits.js"
import { clampCount, Count, PathParam, Pattern } from "./params.js"
import { plural } from "./text.js"

/** The files a search covers. */
export interface Walked {
  /** The search base, as a virtual path. */
  readonly base: string
  /** Matching files, as virtual paths, sorted. */
  readonly files: ReadonlyArray<string>
  /** Files walked before filtering. */
  readonly walked: number
  /** Whether the walk stopped at {@link walkMaxFiles}. */
  readonly truncated: boolean
}

/** `file` relative to `base`, the form a glob is matched against. */
const relativeTo = (base: string, file: string): string =>
  base === "/" ? file.slice(1) : file.startsWith(`${base}/`) ? file.slice(base.length + 1) : nodePath.posix.basename(file)

/**
 * The files under `path` (or the file `path` itself) whose path matches
 * `pattern`: relative to `path`, or to the sandbox root when the pattern
 * starts with `/`. Every file when there is no pattern.
 */
export const walkMatching = (
  env: Env,
  path: string,
  pattern: string | undefined
): Effect.Effect<Walked, ToolFailure> =>
  Effect.gen(function*() {
    const rooted = pattern?.startsWith("/") === true
    const compiled = pattern === undefined ? Either.right(() => true) : compileGlob(rooted ? pattern.slice(1) : pattern)
    if (Either.isLeft(compiled)) return yield* Tool.fail(compiled.left)
    const matches = compiled.right
    const resolved = yield* guarded(env.naming, env.sandbox.resolve(path))
    const all = yield* guarded(env.naming, env.sandbox.walk(resolved.virtual, walkMaxFiles))
    return {
      base: resolved.virtual,
      files: all.filter((file) => matches(rooted ? file.slice(1) : relativeTo(resolved.virtual, file))),
      walked: all.length,
      truncated: all.length >= walkMaxFiles
    }
  })

/** The note for a walk cut short. */
export const truncatedWalkNote = (walked: Walked): string | undefined =>
  walked.truncated
    ? `[stopped after ${walkMaxFiles} files: files beyond them were not searched; give a narrower path]`
    : undefined

const docs = {
  pattern:
    `Required. A glob: * matches within a name, ** across directories, ? one character, [abc] a set, {a,b} alternatives. A pattern without "/" matches file names at any depth ("*.md"); one with "/" matches the path relative to path ("src/**/*.ts"), or to the sandbox root when it starts with "/". A leading ! negates it.`,
  path: `Optional. The directory to search, default "/" (the whole sandbox).`,
  max_results: `Optional. Paths to show, default ${globDefaultResults}, max ${globMaxResults} (larger values are clamped).`
}

/** The parameters of `glob`. */
export const GlobParams = Schema.Struct({
  pattern: Pattern.annotations({ description: docs.pattern }),
  path: Schema.optional(PathParam.annotations({ description: docs.path })),
  max_results: Schema.optional(Count.annotations({ description: docs.max_results }))
})

/** `glob`. */
export const glob = define({
  action: "glob",
  parameters: GlobParams,
  docs,
  summary: () => `Find files by glob pattern ("*.md" at any depth, "src/**/*.ts"); one path per line, sorted.`,
  purpose: (naming) =>
    `Find files whose path matches a glob pattern, at any depth under a directory. Hidden files (names starting with ".") match like any other; symbolic links are not followed. To search inside files use ${
      naming.call("grep")
    }.`,
  output: () =>
    `a header "<N> files match <pattern> under <path>:", then one path per line, sorted, rooted at "/". At most max_results paths; a last line says when the list was capped, and when the walk stopped at ${walkMaxFiles} files.`,
  errors: () =>
    "a missing directory is an error saying what to do; a pattern longer than 1000 characters, or using negated groups !(…), is an error. No match is not an error: the answer says so.",
  examples: [
    { args: { pattern: "*.md" }, note: "every Markdown file" },
    { args: { pattern: "src/**/*.{ts,tsx}" } },
    { args: { pattern: "*.test.ts", path: "/test", max_results: 50 } }
  ],
  run: (env, params) =>
    Effect.gen(function*() {
      const { note: clampNote, value: cap } = clampCount(
        params.max_results,
        globDefaultResults,
        globMaxResults,
        "results"
      )
      const walked = yield* walkMatching(env, params.path ?? "/", params.pattern)
      const quoted = JSON.stringify(params.pattern)
      const walkNote = truncatedWalkNote(walked)
      if (walked.files.length === 0) {
        return [
          `no files match ${quoted} under ${walked.base} (${plural(walked.walked, "file")} searched). ` +
          `A pattern without "/" matches file names at any depth; use "**/" to cross directories, e.g. "src/**/*.ts".`,
          ...(walkNote === undefined ? [] : [walkNote])
        ].join("\n")
      }
      const shown = walked.files.slice(0, cap)
      return [
        `${plural(walked.files.length, "file")} ${walked.files.length === 1 ? "matches" : "match"} ${quoted} under ${walked.base}:`,
        ...shown,
        ...[
          clampNote,
          shown.length < walked.files.length
            ? `[capped at ${cap} of ${walked.files.length} matches; narrow the pattern or path, or raise max_results (max ${globMaxResults})]`
            : undefined,
          walkNote
        ].filter((note): note is string => note !== undefined)
      ].join("\n")
    })
})
