/**
 * The catalogue of fs operations, the one list both surfaces are built from.
 *
 * @module
 */
import type { Operation } from "./define.js"
import { edit } from "./edit.js"
import { glob } from "./glob.js"
import { grep } from "./grep.js"
import { list } from "./list.js"
import { type FsAction, fsActions } from "./naming.js"
import { checkPath, cwd, sandbox } from "./paths.js"
import { read } from "./read.js"
import { write } from "./write.js"

/** Each operation by its action. */
export const operationsByAction: Readonly<Record<FsAction, Operation>> = {
  read,
  write,
  edit,
  list,
  glob,
  grep,
  check_path: checkPath,
  cwd,
  sandbox
}

/** Every operation, in manual order. */
export const operations: ReadonlyArray<Operation> = fsActions.map((action) => operationsByAction[action])

/** `path (required), start_line, offset`: what an operation takes, for error messages. */
export const takes = (operation: Operation): string => {
  const names = [...operation.required.map((name) => `${name} (required)`), ...operation.optional]
  return names.length === 0 ? "no parameters" : names.join(", ")
}

/**
 * The action a call without one most likely meant, from the parameters it
 * does have; `undefined` when they do not make it clear.
 */
export const inferAction = (args: Readonly<Record<string, unknown>>): FsAction | undefined => {
  if ("content" in args) return "start_line" in args || "end_line" in args ? "edit" : "write"
  if ("glob" in args || "ignore_case" in args) return "grep"
  const pattern = args["pattern"]
  if (typeof pattern === "string") return looksLikeGlob(pattern) ? "glob" : "grep"
  if ("start_line" in args || "offset" in args || "limit" in args || "line_numbers" in args) return "read"
  return undefined
}

/** `*.md`, `src/*.ts`, `**` read as globs; `foo.*bar` and `TODO` as regular expressions. */
const looksLikeGlob = (pattern: string): boolean =>
  pattern.includes("**") || pattern.startsWith("*") || (pattern.includes("*") && pattern.includes("/"))
