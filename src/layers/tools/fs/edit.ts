/**
 * `edit`: replace a range of lines (or insert before a line) in a text
 * file, by the line numbers `read` shows. Untouched lines keep their exact
 * bytes, line endings included.
 *
 * @module
 */
import { Effect, Schema } from "effect"
import type { ToolFailure } from "../../../domain/errors.js"
import * as Tool from "../../../domain/Tool.js"
import { define, type Env } from "./define.js"
import { guarded } from "./failures.js"
import { editMaxBytes } from "./limits.js"
import { EndLine, LineNumber, PathParam } from "./params.js"
import { decode, looksBinary, numbered, plural, splitLines } from "./text.js"

/** One line of a file and the terminator that ended it (`""` for a last line without one). */
interface Line {
  readonly body: string
  readonly eol: string
}

const splitKeeping = (text: string): Array<Line> => {
  const lines: Array<Line> = []
  let at = 0
  while (at < text.length) {
    const found = text.indexOf("\n", at)
    if (found === -1) {
      lines.push({ body: text.slice(at), eol: "" })
      break
    }
    const crlf = found > at && text[found - 1] === "\r"
    lines.push({ body: text.slice(at, crlf ? found - 1 : found), eol: crlf ? "\r\n" : "\n" })
    at = found + 1
  }
  return lines
}

/** Lines of an edit shown back in the report. */
const shownLines = 20

/** The parameters of one edit. */
export interface EditRequest {
  readonly path: string
  readonly start_line: number
  readonly end_line: number
  readonly content: string
}

const check = (path: string, total: number, { content, end_line: end, start_line: start }: EditRequest) => {
  if (start > total + 1) {
    return `start_line ${start} is past the end of ${path}, which has ${plural(total, "line")}. ` +
      `Use start_line 1..${total + 1}; start_line=${total + 1} with end_line=${total} appends.`
  }
  if (end < start - 1) {
    return `end_line ${end} is before start_line ${start}. To replace lines give end_line >= start_line; ` +
      `to insert before line ${start} give end_line=${start - 1}.`
  }
  if (end > total) {
    return `end_line ${end} is past the end of ${path}, which has ${plural(total, "line")}. Use end_line <= ${total}.`
  }
  if (end === start - 1 && content === "") {
    return `nothing to do: end_line=${end} inserts before line ${start}, but content is empty. ` +
      "Give the lines to insert, or end_line >= start_line to replace or delete lines."
  }
  return undefined
}

const describeChange = (total: number, start: number, end: number, added: number): string => {
  const removed = end - start + 1
  if (removed === 0) {
    return start > total
      ? `appended ${plural(added, "line")} after line ${total}`
      : `inserted ${plural(added, "line")} before line ${start}`
  }
  return added === 0
    ? `deleted lines ${start}-${end} (${plural(removed, "line")})`
    : `replaced lines ${start}-${end} (${plural(removed, "line")}) with ${plural(added, "line")}`
}

/** Applies one edit to the file as it is now. */
export const applyEdit = (env: Env, request: EditRequest): Effect.Effect<string, ToolFailure> =>
  Effect.gen(function*() {
    const resolved = yield* guarded(env.naming, env.sandbox.resolve(request.path))
    const path = resolved.virtual
    const bytes = yield* guarded(env.naming, env.sandbox.readFile(path, editMaxBytes))
    if (looksBinary(bytes)) return yield* Tool.fail(`${path} is a binary file; edit changes text files only.`)
    const lines = splitKeeping(decode(bytes))
    const total = lines.length
    const problem = check(path, total, request)
    if (problem !== undefined) {
      return yield* Tool.fail(`${problem} Read the lines first with ${env.naming.call("read")} to see their numbers.`)
    }
    const { end_line: end, start_line: start } = request
    const style = lines[0]?.eol || "\n" // a one-line file without a terminator gets "\n"
    const finalEol = total === 0 ? "\n" : lines[total - 1]?.eol ?? "\n"
    const added = splitLines(request.content)
    const result: Array<Line> = [
      ...lines.slice(0, start - 1),
      ...added.map((body) => ({ body, eol: style })),
      ...lines.slice(end)
    ].map((line, i, all) => ({
      body: line.body,
      // Every line but the last ends with a terminator; the last keeps the file's own ending.
      eol: i === all.length - 1 ? finalEol : line.eol === "" ? style : line.eol
    }))
    yield* guarded(env.naming, env.sandbox.writeFile(path, result.map((line) => line.body + line.eol).join("")))
    const summary = `edited ${path}: ${describeChange(total, start, end, added.length)}; it now has ${
      plural(result.length, "line")
    } (was ${total}).`
    if (added.length === 0) return summary
    return [
      summary,
      `lines ${start}-${start + added.length - 1} now:`,
      numbered(added.slice(0, shownLines), start),
      ...(added.length > shownLines ? [`[… ${added.length - shownLines} more lines]`] : [])
    ].join("\n")
  })

const docs = {
  path: "Required. The file to change; it must exist (create files with write).",
  start_line: "Required. The first line to replace, 1-based, as numbered by read.",
  end_line:
    "Required. The last line to replace, inclusive. end_line = start_line - 1 replaces nothing: content is inserted before start_line (start_line = last line + 1 appends).",
  content: `Required. The new lines, without "<n>|" prefixes. One trailing newline is ignored; "" deletes the lines.`
}

/** The parameters of `edit`. */
export const EditParams = Schema.Struct({
  path: PathParam.annotations({ description: docs.path }),
  start_line: LineNumber.annotations({ description: docs.start_line }),
  end_line: EndLine.annotations({ description: docs.end_line }),
  content: Schema.String.annotations({ description: docs.content })
})

/** `edit`. */
export const edit = define({
  action: "edit",
  parameters: EditParams,
  docs,
  summary: (naming) =>
    `Replace lines start_line..end_line of a text file with content (end_line = start_line - 1 inserts). Use the numbers from ${
      naming.call("read")
    }.`,
  purpose: (naming) =>
    `Change part of a text file: lines start_line..end_line (1-based, inclusive) are replaced by content. With end_line = start_line - 1 nothing is replaced and content is inserted before start_line. Line numbers are the ones ${
      naming.call("read")
    } shows, so read the lines first. After an edit the lines below it move: read again before the next edit, or edit from the bottom of the file up. Untouched lines keep their exact bytes and line endings; the file is rewritten atomically.`,
  output: () =>
    `"edited <path>: replaced lines a-b (n lines) with m lines; it now has N lines (was M).", then the new lines, numbered (at most 20).`,
  errors: (naming) =>
    `a missing file is an error (create it with ${
      naming.call("write")
    }); start_line or end_line past the end of the file, or end_line below start_line - 1, is an error giving the file's line count; nothing is written then. Files over 8 MiB and binary files cannot be edited.`,
  examples: [
    { args: { path: "/src/app.ts", start_line: 12, end_line: 14, content: "const port = 8080\n" }, note: "lines 12-14 become one line" },
    { args: { path: "/src/app.ts", start_line: 1, end_line: 0, content: "// header\n" }, note: "inserts before line 1" },
    { args: { path: "/src/app.ts", start_line: 30, end_line: 31, content: "" }, note: "deletes lines 30-31" }
  ],
  target: (params) => ({ path: params.path, lines: { start: params.start_line, end: params.end_line } }),
  run: applyEdit
})
