/**
 * What a line typed into the hybrid shell (`easyai --shell`) means: `> text`
 * goes to the model; `cd`, `export` and `unset` change the shell's own
 * directory and environment, so they last; anything else is a command for
 * the user's `$SHELL`. Pure: the shell applies the result.
 *
 * Words are split, unquoted and `$VAR`-expanded by `shell-quote`, as a POSIX
 * shell would; a builtin followed by an operator (`cd x && make`), a glob or
 * a comment goes to `$SHELL` whole instead.
 *
 * @module
 */
import * as path from "node:path"
import { parse } from "shell-quote"

/** A line of the hybrid shell. */
export type ShellLine =
  | { readonly _tag: "Blank" }
  | { readonly _tag: "Ask"; readonly text: string }
  | { readonly _tag: "Cd"; readonly target: string | undefined }
  | { readonly _tag: "Export"; readonly assignments: ReadonlyArray<readonly [name: string, value: string]> }
  | { readonly _tag: "Unset"; readonly names: ReadonlyArray<string> }
  | { readonly _tag: "Run"; readonly command: string }
  | { readonly _tag: "Invalid"; readonly message: string }

/** The environment variables are read from. */
export type Environment = Readonly<Record<string, string | undefined>>

const variableName = /^[A-Za-z_][A-Za-z0-9_]*$/
const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s
// In an assignment's value, `~` at the start or after a `:` is the home directory, as in bash (`PATH=$PATH:~/bin`).
const assignmentTilde = /(^|:)~(?=\/|:|$)/g

const exportLine = (words: ReadonlyArray<string>, home: string | undefined): ShellLine => {
  const assignments: Array<readonly [string, string]> = []
  for (const word of words) {
    const match = assignment.exec(word)
    if (match !== null) {
      const value = match[2] ?? ""
      assignments.push([match[1] ?? "", home === undefined ? value : value.replace(assignmentTilde, `$1${home}`)])
    } else if (!variableName.test(word)) {
      return { _tag: "Invalid", message: `export: expected NAME=value, got ${word}` }
    }
    // A bare NAME marks a variable for export, which every variable here already is.
  }
  return { _tag: "Export", assignments }
}

/** Reads one line of the hybrid shell; `$VAR` in a builtin's words comes from `env`. */
export const parseShellLine = (line: string, env: Environment): ShellLine => {
  const text = line.trim()
  if (text === "") return { _tag: "Blank" }
  if (text.startsWith(">")) return { _tag: "Ask", text: text.slice(1).trim() }
  const command = text.split(/\s/, 1)[0]
  if (command !== "cd" && command !== "export" && command !== "unset") return { _tag: "Run", command: text }
  const tokens = parse(text, (name) => env[name] ?? "")
  const words = tokens.flatMap((token) => (typeof token === "string" ? [token] : []))
  // An operator, a glob or a comment: the line is more than one builtin call.
  if (words.length !== tokens.length) return { _tag: "Run", command: text }
  const args = words.slice(1)
  switch (command) {
    case "cd":
      if (args.length > 1) return { _tag: "Invalid", message: "cd: too many arguments" }
      return { _tag: "Cd", target: args[0] }
    case "export":
      return args.length === 0 ? { _tag: "Run", command: text } : exportLine(args, env["HOME"])
    case "unset": {
      if (args.length === 0) return { _tag: "Invalid", message: "unset: expected a variable name" }
      const bad = args.find((word) => !variableName.test(word))
      return bad === undefined ? { _tag: "Unset", names: args } : { _tag: "Invalid", message: `unset: not a variable name: ${bad}` }
    }
  }
}

/** Where the shell stands, for resolving `cd`'s target. */
export interface ShellPlace {
  readonly cwd: string
  readonly home: string | undefined
  /** The previous directory (`cd -`). */
  readonly previous: string | undefined
}

/** The absolute directory `cd target` goes to, or what is wrong. */
export const cdTarget = (
  target: string | undefined,
  place: ShellPlace
): { readonly _tag: "Dir"; readonly path: string } | { readonly _tag: "Invalid"; readonly message: string } => {
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
  const root = home === undefined ? "" : home.replace(/\/+$/, "")
  if (root === "") return dir
  if (dir === root) return "~"
  return dir.startsWith(`${root}${path.sep}`) ? `~${dir.slice(root.length)}` : dir
}
