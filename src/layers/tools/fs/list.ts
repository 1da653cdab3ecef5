/**
 * `list`: one directory's entries, with type and size.
 *
 * @module
 */
import { Effect, Schema } from "effect"
import type { DirectoryEntry } from "../../../services/Sandbox.js"
import { define } from "./define.js"
import { guarded } from "./failures.js"
import { listMaxEntries } from "./limits.js"
import { PathParam } from "./params.js"
import { plural } from "./text.js"

const typeWord: Record<DirectoryEntry["type"], string> = { File: "file", Directory: "dir", Other: "other" }

/** The size column: bytes for files; a directory's own size says nothing useful. */
const sizeText = (entry: DirectoryEntry): string => (entry.type === "File" ? String(entry.size) : "-")

const row = (entry: DirectoryEntry, sizeWidth: number): string =>
  `${typeWord[entry.type].padEnd(5)} ${sizeText(entry).padStart(sizeWidth)}  ${entry.name}${
    entry.type === "Directory" ? "/" : ""
  }`

const docs = {
  path: `Optional. The directory, e.g. "/src". Default "/", the sandbox root.`
}

/** The parameters of `list`. */
export const ListParams = Schema.Struct({
  path: Schema.optional(PathParam.annotations({ description: docs.path }))
})

/** `list`. */
export const list = define({
  action: "list",
  parameters: ListParams,
  docs,
  summary: () => `List a directory: one "type size name" line per entry, sorted by name.`,
  purpose: (naming) =>
    `List the entries of one directory (not recursive), sorted by name, with their type and size. To find files at any depth use ${
      naming.call("glob")
    }.`,
  output: () =>
    `a header "<path> (<N> entries):", then one line per entry: type (file, dir or other: a link, device or socket), size in bytes (files only, "-" otherwise) and name; directory names end in "/". At most ${listMaxEntries} entries are shown; a last line says how many were left out.`,
  errors: (naming) =>
    `a missing path or a file is an error saying what to do (read files with ${naming.call("read")}).`,
  examples: [
    { args: {}, note: "the sandbox root" },
    { args: { path: "/src" } }
  ],
  run: (env, params) =>
    Effect.gen(function*() {
      const resolved = yield* guarded(env.naming, env.sandbox.resolve(params.path ?? "/"))
      const { entries, total } = yield* guarded(env.naming, env.sandbox.list(resolved.virtual, listMaxEntries))
      const header = `${resolved.virtual} (${plural(total, "entry", "entries")})`
      if (total === 0) return `${header}: empty directory`
      const width = Math.max(1, ...entries.map((entry) => sizeText(entry).length))
      return [
        `${header}:`,
        ...entries.map((entry) => row(entry, width)),
        ...(total > entries.length
          ? [`[${total - entries.length} more entries not shown; find files with ${env.naming.call("glob")}]`]
          : [])
      ].join("\n")
    })
})
