/**
 * The `ops` batch of the unified `fs` tool: many operations in one call,
 * with caps that bound the report and the churn, edits to one file applied
 * bottom-up so each uses the file's original line numbers, and a report a
 * model can check at a glance.
 *
 * @module
 */
import { Effect, Either } from "effect"
import type { ToolFailure } from "../../../domain/errors.js"
import * as Tool from "../../../domain/Tool.js"
import { ToolResult } from "../../../domain/ToolCall.js"
import { type Env, type Prepared, showArgs } from "./define.js"
import { batchMaxFiles, batchMaxOps, batchReadClipBytes } from "./limits.js"
import { type FsAction, fsActions } from "./naming.js"
import { inferAction, operationsByAction, takes } from "./operations.js"
import { clipUtf8, plural } from "./text.js"

/** One op as decoded from the `ops` list: an action (possibly left out) and its parameters. */
export type BatchItem = Readonly<{ action?: FsAction | undefined } & Record<string, unknown>>

const exampleOps = {
  action: "ops",
  ops: [
    { action: "read", path: "/src/app.ts", start_line: 1, limit: 20 },
    { action: "edit", path: "/src/app.ts", start_line: 3, end_line: 3, content: "const port = 8080" }
  ]
}

/** Decodes every op, or lists every problem; nothing runs unless all decode. */
const prepareAll = (items: ReadonlyArray<BatchItem>): Either.Either<ReadonlyArray<Prepared>, string> => {
  const problems: Array<string> = []
  const prepared: Array<Prepared> = []
  items.forEach((item, i) => {
    const { action: given, ...args } = item
    const action = given ?? inferAction(args)
    if (action === undefined) {
      problems.push(`op ${i + 1}: action is missing; give one of ${fsActions.join(", ")}`)
      return
    }
    const operation = operationsByAction[action]
    Either.match(operation.prepare(args), {
      onLeft: (reason) => problems.push(`op ${i + 1} (${action}): ${reason}. ${action} takes ${takes(operation)}`),
      onRight: (op) => prepared.push(op)
    })
  })
  return problems.length === 0
    ? Either.right(prepared)
    : Either.left(
      `invalid ops; nothing was run:\n${problems.join("\n")}\n` +
        `Each op is one action's parameters plus "action", e.g. ${showArgs(exampleOps)}`
    )
}

type Lines = { readonly start: number; readonly end: number }

const showRange = (lines: Lines): string =>
  lines.end < lines.start ? `an insert before line ${lines.start}` : `lines ${lines.start}-${lines.end}`

/** Whether two edits of one file touch the same original lines. */
const overlap = (a: Lines, b: Lines): boolean => {
  const aReplaces = a.end >= a.start
  const bReplaces = b.end >= b.start
  if (aReplaces && bReplaces) return Math.max(a.start, b.start) <= Math.min(a.end, b.end)
  if (aReplaces) return a.start < b.start && b.start <= a.end
  if (bReplaces) return b.start < a.start && a.start <= b.end
  return false
}

/**
 * The order to run ops in: the batch's order, except that the edits of one
 * file, in the slots they occupy, run bottom-up (descending start_line; at
 * one line, a replacement before an insertion, later ops first), so no edit
 * moves the lines another one names. Fails on overlapping edits.
 */
const runOrder = (
  prepared: ReadonlyArray<Prepared>,
  files: ReadonlyArray<string | undefined>
): Either.Either<{ readonly order: ReadonlyArray<number>; readonly reordered: boolean }, string> => {
  const editsByFile = new Map<string, Array<number>>()
  prepared.forEach((op, i) => {
    const file = files[i]
    if (op.target?.lines === undefined || file === undefined) return
    editsByFile.set(file, [...(editsByFile.get(file) ?? []), i])
  })
  const linesOf = (i: number): Lines => prepared[i]?.target?.lines ?? { start: 0, end: 0 }
  const order = prepared.map((_, i) => i)
  let reordered = false
  for (const [file, slots] of editsByFile) {
    for (const [k, a] of slots.entries()) {
      for (const b of slots.slice(k + 1)) {
        if (overlap(linesOf(a), linesOf(b))) {
          return Either.left(
            `ops ${a + 1} and ${b + 1} both edit ${file}, with overlapping ${showRange(linesOf(a))} and ${
              showRange(linesOf(b))
            }. Line numbers in a batch refer to the file before its edits, so overlapping edits are ambiguous: ` +
              "merge them into one edit. Nothing was run."
          )
        }
      }
    }
    if (slots.length > 1) reordered = true
    const sorted = [...slots].sort((a, b) =>
      linesOf(b).start - linesOf(a).start || linesOf(b).end - linesOf(a).end || b - a
    )
    slots.forEach((slot, k) => {
      order[slot] = sorted[k] ?? slot
    })
  }
  return Either.right({ order, reordered })
}

/** Runs an `ops` batch. Invalid or over-cap batches fail whole; op failures are reported in place. */
export const runBatch = (
  env: Env,
  items: ReadonlyArray<BatchItem>,
  continueOnError: boolean
): Effect.Effect<ToolResult, ToolFailure> =>
  Effect.gen(function*() {
    if (items.length === 0) {
      return yield* Tool.fail(`ops is empty: give 1 to ${batchMaxOps} operations, e.g. ${showArgs(exampleOps)}`)
    }
    if (items.length > batchMaxOps) {
      return yield* Tool.fail(
        `ops holds ${items.length} operations; at most ${batchMaxOps} are allowed per call. ` +
          `Split the work into several calls of at most ${batchMaxOps} ops.`
      )
    }
    const decoded = prepareAll(items)
    if (Either.isLeft(decoded)) return yield* Tool.fail(decoded.left)
    const prepared = decoded.right
    // A file counts once however it is spelled ("a.txt", "/a.txt", "/x/../a.txt").
    const files = yield* Effect.forEach(prepared, (op) =>
      op.target === undefined
        ? Effect.succeed(undefined)
        : env.sandbox.resolve(op.target.path).pipe(
          Effect.map((resolved) => resolved.virtual),
          Effect.orElseSucceed(() => op.target?.path)
        ))
    const distinct = [...new Set(files.filter((file): file is string => file !== undefined))]
    if (distinct.length > batchMaxFiles) {
      return yield* Tool.fail(
        `ops names ${distinct.length} distinct files; at most ${batchMaxFiles} are allowed per call ` +
          "(only read, write, edit and check_path ops count). Split the work into several calls."
      )
    }
    const planned = runOrder(prepared, files)
    if (Either.isLeft(planned)) return yield* Tool.fail(planned.left)
    const { order, reordered } = planned.right

    const reports: Array<string> = []
    let succeeded = 0
    let failed = 0
    let ran = 0
    for (const i of order) {
      const op = prepared[i]
      if (op === undefined) continue
      const file = files[i]
      const label = `[${i + 1}] ${op.action}${file === undefined ? "" : ` ${file}`}`
      const outcome = yield* Effect.either(op.run(env))
      ran++
      if (Either.isRight(outcome)) {
        succeeded++
        reports.push(`${label}: ok\n${op.action === "read" ? clipRead(env, outcome.right) : outcome.right}`)
      } else {
        failed++
        reports.push(`${label}: error\n${outcome.left.message}`)
        if (!continueOnError) break
      }
    }
    const notRun = order.slice(ran).map((i) => i + 1)
    const header = `batch: ${plural(prepared.length, "op")} across ${plural(distinct.length, "file")}${
      distinct.length > 0 ? ` (${distinct.join(", ")})` : ""
    }`
    const footer = `done: ${succeeded} ok, ${failed} failed${
      notRun.length > 0
        ? `, ${notRun.length} not run (${notRun.length === 1 ? "op" : "ops"} ${
          notRun.join(", ")
        }): continue_on_error is false, so the batch stopped at the first failure`
        : ""
    }.`
    const text = [
      header,
      ...(reordered
        ? ["[edits to one file ran bottom-up (descending start_line), so each used the original line numbers]"]
        : []),
      "",
      reports.join("\n\n"),
      "",
      footer
    ].join("\n")
    return failed > 0 ? ToolResult.error(text) : ToolResult.ok(text)
  })

const clipRead = (env: Env, body: string): string => {
  const clipped = clipUtf8(body, batchReadClipBytes)
  return clipped.clipped
    ? `${clipped.text}\n[clipped to ${batchReadClipBytes} bytes in the batch report; call ${
      env.naming.call("read")
    } alone for the full text]`
    : body
}
