/**
 * `grep`: lines matching a regular expression, in one file or every file
 * under a directory. The expression comes from the model and the files may
 * too, so it runs on RE2 (linear time, no backtracking), never on the
 * JavaScript engine.
 *
 * @module
 */
import { Effect, Either, Schema } from "effect"
import { RE2JS } from "re2js"
import * as Tool from "../../../domain/Tool.js"
import { define } from "./define.js"
import { walkMatching, truncatedWalkNote } from "./glob.js"
import { tooLong } from "./globMatch.js"
import { grepDefaultMatches, grepMaxBytesPerFile, grepMaxLineChars, grepMaxMatches } from "./limits.js"
import { clampCount, Count, PathParam, Pattern } from "./params.js"
import { decode, looksBinary, plural, splitLines } from "./text.js"
import { errorText } from "../../../domain/errorText.js"


/** Compiles a model-supplied expression, or says how to fix it. */
const compile = (pattern: string, ignoreCase: boolean): Either.Either<RE2JS, string> => {
  const long = tooLong("pattern", pattern)
  if (long !== undefined) return Either.left(long)
  try {
    return Either.right(RE2JS.compile(pattern, ignoreCase ? RE2JS.CASE_INSENSITIVE : 0))
  } catch (error) {
    return Either.left(
      `invalid pattern ${JSON.stringify(pattern)}: ${errorText(error)}. ` +
        "Patterns use RE2 syntax: JavaScript-style regular expressions without backreferences (\\1) or lookaround ((?=…), (?<=…)). " +
        `Escape a literal . * + ? ( ) [ ] { } | \\ ^ $ with a backslash, e.g. "foo\\\\(" to find "foo(".`
    )
  }
}

/** A matching line, cut to a window around its first match when it is long. */
const excerpt = (regex: RE2JS, line: string): string => {
  if (line.length <= grepMaxLineChars) return line
  const matcher = regex.matcher(line)
  const start = matcher.find() ? matcher.start() : 0
  const from = Math.max(0, start - Math.floor(grepMaxLineChars / 3))
  const to = Math.min(line.length, from + grepMaxLineChars)
  return `${from > 0 ? "…" : ""}${line.slice(from, to)}${to < line.length ? "…" : ""}`
}

const listSome = (paths: ReadonlyArray<string>): string =>
  paths.length <= 5 ? paths.join(", ") : `${paths.slice(0, 5).join(", ")}, …`

const docs = {
  pattern:
    `Required. An RE2 regular expression (JavaScript-like, without backreferences or lookaround), tested against each line; it matches anywhere in the line, so anchor with ^ and $ for whole lines. Escape literal characters such as ( or . with a backslash.`,
  path: `Optional. A directory to search recursively, or one file. Default "/" (the whole sandbox).`,
  glob: `Optional. Only search files whose path matches this glob, e.g. "*.ts" (any depth) or "src/**/*.md".`,
  ignore_case: "Optional. Match letters regardless of case. Default false.",
  max_results: `Optional. Matching lines to show, default ${grepDefaultMatches}, max ${grepMaxMatches} (larger values are clamped).`
}

/** The parameters of `grep`. */
export const GrepParams = Schema.Struct({
  pattern: Pattern.annotations({ description: docs.pattern }),
  path: Schema.optional(PathParam.annotations({ description: docs.path })),
  glob: Schema.optional(Pattern.annotations({ description: docs.glob })),
  ignore_case: Schema.optional(Schema.Boolean.annotations({ description: docs.ignore_case })),
  max_results: Schema.optional(Count.annotations({ description: docs.max_results }))
})

/** `grep`. */
export const grep = define({
  action: "grep",
  parameters: GrepParams,
  docs,
  summary: () => `Search file contents with a regular expression (RE2); one "path:line:text" per match.`,
  purpose: (naming) =>
    `Search the lines of one file, or of every file under a directory, for a regular expression. Matching runs in linear time (RE2), so any pattern is safe. Binary files are skipped; only the first ${grepMaxBytesPerFile} bytes (1 MiB) of each file are searched. To find files by name use ${
      naming.call("glob")
    }.`,
  output: () =>
    `a header "<N> matches for <pattern> in <F> files (<S> files searched under <path>):", then one "<path>:<line>:<text>" line per match, in path and line order; lines longer than ${grepMaxLineChars} characters are cut around the match. Last lines say when the matches were capped, when files were only partly searched or skipped as binary.`,
  errors: () =>
    "an invalid pattern is an error explaining the syntax; a missing path is an error saying what to do. No match is not an error: the answer says so.",
  examples: [
    { args: { pattern: "TODO" } },
    { args: { pattern: "^export (const|function) ", path: "/src", glob: "*.ts" } },
    { args: { pattern: "error", path: "/logs/app.log", ignore_case: true, max_results: 20 } }
  ],
  run: (env, params) =>
    Effect.gen(function*() {
      const compiled = compile(params.pattern, params.ignore_case === true)
      if (Either.isLeft(compiled)) return yield* Tool.fail(compiled.left)
      const regex = compiled.right
      const { note: clampNote, value: cap } = clampCount(
        params.max_results,
        grepDefaultMatches,
        grepMaxMatches,
        "matches"
      )
      const walked = yield* walkMatching(env, params.path ?? "/", params.glob)
      const matches: Array<string> = []
      const matchedFiles = new Set<string>()
      const partial: Array<string> = []
      const unreadable: Array<string> = []
      let binary = 0
      let capped = false
      for (const file of walked.files) {
        if (capped) break
        const read = yield* Effect.either(env.sandbox.readRange(file, 0, grepMaxBytesPerFile))
        if (Either.isLeft(read)) {
          unreadable.push(file) // vanished or unreadable since the walk: report, keep searching
          continue
        }
        const { bytes, size } = read.right
        if (looksBinary(bytes)) {
          binary++
          continue
        }
        if (size > bytes.length) partial.push(file)
        const lines = splitLines(decode(bytes))
        for (let i = 0; i < lines.length; i++) {
          const line = lines[i] ?? ""
          if (!regex.test(line)) continue
          matches.push(`${file}:${i + 1}:${excerpt(regex, line)}`)
          matchedFiles.add(file)
          if (matches.length >= cap) {
            capped = true
            break
          }
        }
      }
      const quoted = JSON.stringify(params.pattern)
      const searched = `${plural(walked.files.length, "file")} searched under ${walked.base}`
      const notes = [
        clampNote,
        capped
          ? `[stopped at ${cap} matches; there may be more: narrow the pattern, path or glob, or raise max_results (max ${grepMaxMatches})]`
          : undefined,
        partial.length > 0
          ? `[only the first ${grepMaxBytesPerFile} bytes of ${plural(partial.length, "file")} were searched: ${
            listSome(partial)
          }]`
          : undefined,
        binary > 0 ? `[${plural(binary, "binary file")} skipped]` : undefined,
        unreadable.length > 0
          ? `[${plural(unreadable.length, "file")} could not be read: ${listSome(unreadable)}]`
          : undefined,
        truncatedWalkNote(walked)
      ].filter((note): note is string => note !== undefined)
      const header = matches.length === 0
        ? `no matches for ${quoted} (${searched})`
        : `${plural(matches.length, "match", "matches")} for ${quoted} in ${
          plural(matchedFiles.size, "file")
        } (${searched}):`
      return [header, ...matches, ...notes].join("\n")
    })
})
