/**
 * What a line typed into the hybrid shell (`easyai --shell`) means: `> text`
 * goes to the model; `cd`, `export` and `unset` change the shell's own
 * directory and environment, so they last; anything else is a command for
 * the user's `$SHELL`. Pure: the shell applies the result.
 *
 * @module
 */
import * as path from "node:path"

/** A line of the hybrid shell. */
export type ShellLine =
  | { readonly _tag: "Blank" }
  | { readonly _tag: "Ask"; readonly text: string }
  | { readonly _tag: "Cd"; readonly target: string | undefined }
  | { readonly _tag: "Export"; readonly assignments: ReadonlyArray<readonly [name: string, value: string]> }
  | { readonly _tag: "Unset"; readonly names: ReadonlyArray<string> }
  | { readonly _tag: "Run"; readonly command: string }
  | { readonly _tag: "Invalid"; readonly message: string }

const name = /^[A-Za-z_][A-Za-z0-9_]*$/
// One `NAME=value` word: the value bare, or in one pair of double or single quotes (which are dropped).
const assignment = /([A-Za-z_][A-Za-z0-9_]*)=(?:"([^"]*)"|'([^']*)'|([^\s"']*))(?=\s|$)/y
// Characters that make a line more than one simple builtin call: such a line goes to $SHELL whole.
const compound = /[;&|<>`()\\]/
// `$NAME` or `${NAME}` in a cd target.
const variable = /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g

/** The word without one pair of surrounding quotes (one quoted word: `"a" "b"` is two). */
const unquote = (word: string): string =>
  word.length >= 2 && (word[0] === "\"" || word[0] === "'") && word.at(-1) === word[0] &&
    !word.slice(1, -1).includes(word[0])
    ? word.slice(1, -1)
    : word

const parseAssignments = (text: string): ShellLine => {
  const assignments: Array<readonly [string, string]> = []
  let at = 0
  while (at < text.length) {
    while (text[at] === " " || text[at] === "\t") at++
    if (at >= text.length) break
    assignment.lastIndex = at
    const match = assignment.exec(text)
    if (match === null) return { _tag: "Invalid", message: `export: expected NAME=value, got ${text.slice(at).split(/\s/)[0]}` }
    assignments.push([match[1] ?? "", match[2] ?? match[3] ?? match[4] ?? ""])
    at = assignment.lastIndex
  }
  return assignments.length === 0 ? { _tag: "Invalid", message: "export: expected NAME=value" } : { _tag: "Export", assignments }
}

/** Reads one line of the hybrid shell. */
export const parseShellLine = (line: string): ShellLine => {
  const text = line.trim()
  if (text === "") return { _tag: "Blank" }
  if (text.startsWith(">")) return { _tag: "Ask", text: text.slice(1).trim() }
  const [command = "", ...words] = text.split(/\s+/)
  const rest = text.slice(command.length).trim()
  switch (command) {
    case "cd": {
      if (rest === "") return { _tag: "Cd", target: undefined }
      const quoted = unquote(rest) !== rest
      if (compound.test(rest) || (!quoted && words.length > 1)) return { _tag: "Run", command: text }
      return { _tag: "Cd", target: unquote(rest) }
    }
    case "export":
      return words.length === 0 ? { _tag: "Run", command: text } : parseAssignments(rest)
    case "unset": {
      const bad = words.find((word) => !name.test(word))
      if (words.length === 0) return { _tag: "Invalid", message: "unset: expected a variable name" }
      return bad === undefined ? { _tag: "Unset", names: words } : { _tag: "Invalid", message: `unset: not a variable name: ${bad}` }
    }
    default:
      return { _tag: "Run", command: text }
  }
}

/** Where the shell stands, for resolving `cd`'s target. */
export interface ShellPlace {
  readonly cwd: string
  readonly home: string | undefined
  /** The previous directory (`cd -`). */
  readonly previous: string | undefined
  /** The environment `$NAME` in a target is read from. */
  readonly env: Readonly<Record<string, string | undefined>>
}

/** The absolute directory `cd target` goes to, or what is wrong. */
export const cdTarget = (
  written: string | undefined,
  place: ShellPlace
): { readonly _tag: "Dir"; readonly path: string } | { readonly _tag: "Invalid"; readonly message: string } => {
  const target = written?.replace(variable, (_, braced: string | undefined, bare: string | undefined) => place.env[braced ?? bare ?? ""] ?? "")
  if (target === "-") {
    return place.previous === undefined ? { _tag: "Invalid", message: "cd: OLDPWD not set" } : { _tag: "Dir", path: place.previous }
  }
  if (target === undefined || target === "~" || target.startsWith("~/")) {
    if (place.home === undefined) return { _tag: "Invalid", message: "cd: HOME not set" }
    return { _tag: "Dir", path: path.join(place.home, target === undefined ? "" : target.slice(1)) }
  }
  return { _tag: "Dir", path: path.resolve(place.cwd, target) }
}

/** The directory as the prompt shows it: `~` for the home directory and what is under it. */
export const tildePath = (dir: string, home: string | undefined): string => {
  if (home === undefined || home === "" || home === "/") return dir
  if (dir === home) return "~"
  return dir.startsWith(`${home}${path.sep}`) ? `~${dir.slice(home.length)}` : dir
}
