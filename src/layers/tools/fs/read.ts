/**
 * `read`: a text file with numbered lines, in line mode (`start_line`) or
 * byte mode (`offset`). Files are scanned in 1 MiB chunks, so a huge file
 * costs what is shown (plus a line count up to 8 MiB), never a whole load.
 *
 * @module
 */
import { Effect, Schema } from "effect"
import * as Tool from "../../../domain/Tool.js"
import type { Service as SandboxService } from "../../../services/Sandbox.js"
import { define, type Env } from "./define.js"
import { guarded, type SandboxFailure } from "./failures.js"
import {
  lineCountMaxBytes,
  readDefaultBytes,
  readDefaultLines,
  readLineModeMaxBytes,
  readMaxBytes,
  readMaxLines
} from "./limits.js"
import { ByteOffset, clampCount, Count, LineNumber, PathParam } from "./params.js"
import {
  countNewlines,
  decode,
  lineTotal,
  looksBinary,
  numbered,
  plural,
  splitLines,
  withoutCr
} from "./text.js"

const chunkBytes = 1_048_576
const newline = 10

/**
 * Feeds the file's bytes, from the start, to `visit` one chunk at a time
 * until `visit` returns false or the file ends; tells whether it ended.
 */
const scan = (
  sandbox: SandboxService,
  path: string,
  visit: (bytes: Uint8Array, at: number) => boolean
): Effect.Effect<boolean, SandboxFailure> =>
  Effect.gen(function*() {
    let at = 0
    while (true) {
      const { bytes } = yield* sandbox.readRange(path, at, chunkBytes)
      if (bytes.length === 0) return true
      if (!visit(bytes, at)) return false
      at += bytes.length
    }
  })

/** What line mode collected. */
interface LineWindow {
  readonly lines: ReadonlyArray<string>
  /** The file's line count, when the scan reached its end. */
  readonly total: number | undefined
  /** Whether lines follow the window. */
  readonly more: boolean
  /** A line cut short by the output budget. */
  readonly cutLine: number | undefined
  /** The first line of the window holding a NUL byte: binary content, not shown. */
  readonly binaryLine: number | undefined
}

const collectLines = (
  sandbox: SandboxService,
  path: string,
  size: number,
  startLine: number,
  limit: number
): Effect.Effect<LineWindow, SandboxFailure> =>
  Effect.gen(function*() {
    const countAll = size <= lineCountMaxBytes
    const lines: Array<string> = []
    let pieces: Array<Uint8Array> = []
    let budget = readLineModeMaxBytes
    let line = 1
    let collecting = true
    let cutLine: number | undefined
    let binaryLine: number | undefined
    let lastByte: number | undefined
    let stoppedAt = size
    const take = (piece: Uint8Array) => {
      const kept = piece.subarray(0, Math.max(0, budget))
      if (kept.length < piece.length) cutLine = line
      if (binaryLine === undefined && looksBinary(kept)) {
        binaryLine = line
        collecting = false // nothing of it is shown: stop here
      }
      pieces.push(kept.slice())
      budget -= kept.length
    }
    const finish = () => {
      lines.push(withoutCr(decode(Buffer.concat(pieces))))
      pieces = []
      if (lines.length >= limit || budget <= 0) collecting = false
    }
    const reachedEnd = yield* scan(sandbox, path, (bytes, chunkAt) => {
      lastByte = bytes[bytes.length - 1]
      let at = 0
      while (collecting) {
        const found = bytes.indexOf(newline, at)
        const end = found === -1 ? bytes.length : found
        if (line >= startLine) take(bytes.subarray(at, end))
        if (found === -1) return true
        if (line >= startLine) finish()
        line++
        at = found + 1
      }
      stoppedAt = Math.min(stoppedAt, chunkAt + at)
      if (!countAll) return false // no total above 8 MiB: stop reading once the window is full
      line += countNewlines(bytes, at)
      return true
    })
    // A last line without a final newline ends with the file.
    if (reachedEnd && collecting && line >= startLine && size > 0 && lastByte !== newline) finish()
    const total = reachedEnd ? lineTotal(size, line - 1, lastByte) : undefined
    const last = startLine + lines.length - 1
    return {
      lines,
      total,
      more: total !== undefined ? last < total : stoppedAt < size,
      cutLine,
      binaryLine
    }
  })

/** Newlines before `offset` (and the byte just before it), and in the whole file when `whole`. */
const lineStats = (sandbox: SandboxService, path: string, offset: number, whole: boolean) =>
  Effect.gen(function*() {
    let before = 0
    let byteBefore: number | undefined
    let all = 0
    let lastByte: number | undefined
    yield* scan(sandbox, path, (bytes, at) => {
      if (at < offset) {
        const upTo = Math.min(bytes.length, offset - at)
        before += countNewlines(bytes, 0, upTo)
        byteBefore = bytes[upTo - 1]
      }
      if (whole) {
        all += countNewlines(bytes)
        lastByte = bytes[bytes.length - 1]
      }
      return whole || at + bytes.length < offset
    })
    return { firstLine: before + 1, byteBefore, newlines: all, lastByte }
  })

const describeFile = (path: string, size: number, total: number | undefined): string =>
  `${path} (${total === undefined ? "over 8 MiB, lines not counted" : plural(total, "line")}, ${plural(size, "byte")})`

const binaryNote = (path: string, size: number): string =>
  `${path}: binary file (${plural(size, "byte")}), not shown: this tool reads text.`

/** Binary content met in line mode at `line`, the window having started at `startLine`. */
const binaryLineNote = (path: string, size: number, startLine: number, line: number): string =>
  `${path}: binary content (a NUL byte) in line ${line} of this ${plural(size, "byte")} file, not shown: this tool reads text.${
    line > startLine ? ` Lines ${startLine}-${line - 1} read as text with start_line=${startLine} limit=${line - startLine}.` : ""
  }`

const emptyNote = (path: string): string => `${path}: empty file (0 lines, 0 bytes)`

const readLines = (
  env: Env,
  path: string,
  size: number,
  startLine: number,
  requested: number | undefined,
  lineNumbersOff: boolean
) =>
  Effect.gen(function*() {
    const { note: clampNote, value: limit } = clampCount(requested, readDefaultLines, readMaxLines, "lines")
    const window = yield* guarded(env.naming, collectLines(env.sandbox, path, size, startLine, limit))
    if (window.binaryLine !== undefined) return binaryLineNote(path, size, startLine, window.binaryLine)
    if (window.lines.length === 0) {
      if (size === 0) return emptyNote(path)
      const total = window.total ?? 0
      return yield* Tool.fail(
        `start_line ${startLine} is past the end of ${path}, which has ${plural(total, "line")}. ` +
          `Use start_line between 1 and ${total}.`
      )
    }
    const last = startLine + window.lines.length - 1
    const notes = [
      clampNote,
      lineNumbersOff ? "[line_numbers applies to byte mode; line mode always numbers lines]" : undefined,
      window.cutLine === undefined
        ? undefined
        : `[line ${window.cutLine} was cut: line mode shows at most ${readLineModeMaxBytes} bytes per call; ` +
          `read the rest in byte mode with offset]`,
      window.more
        ? `[cut: more lines follow${
          window.total === undefined ? "" : ` (${last + 1}-${window.total})`
        }; continue with start_line=${last + 1}]`
        : undefined
    ].filter((note): note is string => note !== undefined)
    return [
      `${describeFile(path, size, window.total)}, lines ${startLine}-${last}:`,
      numbered(window.lines, startLine),
      ...notes
    ].join("\n")
  })

const readBytes = (
  env: Env,
  path: string,
  size: number,
  offset: number,
  requested: number | undefined,
  lineNumbers: boolean
) =>
  Effect.gen(function*() {
    if (size === 0) return emptyNote(path)
    if (offset >= size) {
      return yield* Tool.fail(
        `offset ${offset} is at or past the end of ${path} (${plural(size, "byte")}). ` +
          `Use an offset below ${size}, or start_line for line mode.`
      )
    }
    const { note: clampNote, value: limit } = clampCount(requested, readDefaultBytes, readMaxBytes, "bytes")
    const { bytes } = yield* guarded(env.naming, env.sandbox.readRange(path, offset, limit))
    const windowEnd = offset + bytes.length
    const lastNewline = bytes.lastIndexOf(newline)
    // End on a line boundary when the window holds one, so lines are not split across calls.
    const shown = windowEnd < size && lastNewline >= 0 ? bytes.subarray(0, lastNewline + 1) : bytes
    if (looksBinary(shown)) return binaryNote(path, size)
    const countAll = size <= lineCountMaxBytes
    const stats = lineNumbers || countAll || offset > 0
      ? yield* guarded(env.naming, lineStats(env.sandbox, path, offset, countAll))
      : undefined
    const total = countAll && stats !== undefined ? lineTotal(size, stats.newlines, stats.lastByte) : undefined
    const firstLine = stats?.firstLine ?? 1
    const text = decode(shown)
    const lines = splitLines(text)
    const next = offset + shown.length
    const endsLine = shown[shown.length - 1] === newline
    const notes = [
      clampNote,
      offset > 0 && stats !== undefined && stats.byteBefore !== newline
        ? `[offset ${offset} is inside line ${firstLine}; its beginning is not shown]`
        : undefined,
      next < size
        ? `[cut: ${plural(size - next, "more byte")}; continue with offset=${next}${
          endsLine ? ` or start_line=${firstLine + lines.length}` : ""
        }]`
        : undefined
    ].filter((note): note is string => note !== undefined)
    return [
      `${describeFile(path, size, total)}, bytes ${offset}-${next - 1}:`,
      lineNumbers ? numbered(lines, firstLine) : lines.join("\n"),
      ...notes
    ].join("\n")
  })

const docs = {
  path: `Required. The file, e.g. "/src/app.ts". "/" is the sandbox root; a relative path starts there too.`,
  start_line: "Optional. 1-based line to start at. Giving it selects line mode; omit it for byte mode.",
  offset: "Optional. Byte mode: the byte offset to start at. Default 0.",
  limit:
    `Optional. Line mode: lines to show, default ${readDefaultLines}, max ${readMaxLines}. Byte mode: bytes to show, default ${readDefaultBytes}, max ${readMaxBytes} (1 MiB). Larger values are clamped to the max.`,
  line_numbers: `Optional. Byte mode: prefix each line with "<n>|". Default true. Line mode always numbers lines.`
}

/** The parameters of `read`. */
export const ReadParams = Schema.Struct({
  path: PathParam.annotations({ description: docs.path }),
  start_line: Schema.optional(LineNumber.annotations({ description: docs.start_line })),
  offset: Schema.optional(ByteOffset.annotations({ description: docs.offset })),
  limit: Schema.optional(Count.annotations({ description: docs.limit })),
  line_numbers: Schema.optional(Schema.Boolean.annotations({ description: docs.line_numbers }))
})

/** `read`. */
export const read = define({
  action: "read",
  parameters: ReadParams,
  docs,
  summary: (naming) =>
    `Read a text file with numbered lines: start_line (+ limit lines) for line mode, else offset/limit bytes. Read before ${
      naming.call("edit")
    }.`,
  purpose: (naming) =>
    `Read a text file inside the sandbox. Every line comes prefixed with its number as "<n>|".
Line mode when start_line is given (default ${readDefaultLines} lines, max ${readMaxLines}); byte mode otherwise (from offset, default ${readDefaultBytes} bytes, max 1 MiB, ending on a line boundary when it can).
Read the lines you are about to change before calling ${
      naming.call("edit")
    }: its start_line and end_line are these line numbers.`,
  output: () =>
    `a header "<path> (<N> lines, <B> bytes), lines a-b:" (or "bytes a-b:"), then one "<n>|<text>" line per file line; the "<n>|" prefix is not part of the file. Files over 8 MiB get no total line count. When the output stops before the end of the file, a last line "[cut: … continue with start_line=…]" (or offset=…) says how to read on.`,
  errors: () =>
    "a missing file or a directory is an error saying what to do; start_line past the last line, or offset past the end, is an error giving the file's size; giving both start_line and offset is an error; a binary file is reported, not shown.",
  examples: [
    { args: { path: "/src/app.ts" }, note: "the first 64 KiB, numbered" },
    { args: { path: "/src/app.ts", start_line: 120, limit: 40 }, note: "lines 120-159" },
    { args: { path: "/logs/big.log", offset: 1048576 }, note: "64 KiB from byte 1048576" }
  ],
  target: (params) => ({ path: params.path }),
  run: (env, params) =>
    Effect.gen(function*() {
      if (params.start_line !== undefined && params.offset !== undefined) {
        return yield* Tool.fail(
          "give start_line (line mode) or offset (byte mode), not both. " +
            `Example: ${JSON.stringify({ path: params.path, start_line: params.start_line })}`
        )
      }
      const resolved = yield* guarded(env.naming, env.sandbox.resolve(params.path))
      const info = yield* guarded(env.naming, env.sandbox.stat(resolved.virtual))
      if (info.type !== "File") {
        return yield* Tool.fail(
          `${resolved.virtual} is ${info.type === "Directory" ? "a directory" : "not a regular file"}, not a text file. ` +
            `See what a directory holds with ${env.naming.call("list")}.`
        )
      }
      if (params.start_line !== undefined) {
        const head = yield* guarded(env.naming, env.sandbox.readRange(resolved.virtual, 0, 8192))
        if (looksBinary(head.bytes)) return binaryNote(resolved.virtual, head.size)
        return yield* readLines(
          env,
          resolved.virtual,
          head.size,
          params.start_line,
          params.limit,
          params.line_numbers === false
        )
      }
      return yield* readBytes(
        env,
        resolved.virtual,
        info.size,
        params.offset ?? 0,
        params.limit,
        params.line_numbers ?? true
      )
    })
})
