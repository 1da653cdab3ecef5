/**
 * Glob patterns, parsed by picomatch and matched by RE2. picomatch turns a
 * glob into a JavaScript regular expression, which a backtracking engine
 * would run in exponential time on hostile input; RE2 runs it in linear
 * time. picomatch's lookaheads (which RE2 lacks) only keep `.` and `..`
 * segments and empty names out, and walked paths never hold those, so they
 * are dropped.
 *
 * @module
 */
import * as nodePath from "node:path"
import { Either } from "effect"
import picomatch from "picomatch"
import { RE2JS } from "re2js"
import { patternMaxLength } from "./limits.js"
import { errorText } from "../../../domain/errorText.js"

/** The lookaheads picomatch emits with `dot: true`, none needed for walked paths. */
const droppedLookaheads = [
  "(?!(?:^|\\/)\\.{1,2}(?:\\/|$))",
  "(?!\\.{1,2}(?:\\/|$))",
  "(?!\\.{0,1}(?:\\/|$))",
  "(?=.)"
]

/** Tests a path relative to the search base (no leading `/`). */
export type GlobMatcher = (path: string) => boolean


/** Whether `text` is longer than the longest pattern accepted; says so if it is. */
export const tooLong = (what: string, text: string): string | undefined =>
  text.length > patternMaxLength
    ? `the ${what} is ${text.length} characters long; at most ${patternMaxLength} are accepted`
    : undefined

/**
 * Compiles a glob. Hidden files match like any other; a pattern without `/`
 * matches file names at any depth; a leading `!` negates the whole pattern.
 */
export const compileGlob = (pattern: string): Either.Either<GlobMatcher, string> => {
  const long = tooLong("glob", pattern)
  if (long !== undefined) return Either.left(long)
  const negated = pattern.startsWith("!") && !pattern.startsWith("!(")
  const glob = negated ? pattern.slice(1) : pattern
  let source: string
  try {
    source = picomatch.makeRe(glob, { dot: true }).source
  } catch (error) {
    return Either.left(`invalid glob ${JSON.stringify(pattern)}: ${errorText(error)}`)
  }
  for (const lookahead of droppedLookaheads) source = source.split(lookahead).join("")
  let regex: RE2JS
  try {
    regex = RE2JS.compile(source, RE2JS.DOTALL)
  } catch {
    return Either.left(
      `glob ${JSON.stringify(pattern)} uses a feature not supported here (negated groups such as !(…)). ` +
        "Use *, **, ?, [abc], {a,b}, @(a|b), or a leading ! to negate the whole pattern."
    )
  }
  const byName = !glob.includes("/")
  return Either.right((path) => regex.test(byName ? nodePath.posix.basename(path) : path) !== negated)
}
