/**
 * The unified surface: one `fs` tool that dispatches on `action`, plus the
 * `ops` batch. Every action runs the same operation the split tool of its
 * name runs; only the parameter schema (flat, each parameter saying which
 * actions use it) and the manual differ.
 *
 * @module
 */
import { Either, Schema } from "effect"
import * as Tool from "../../../domain/Tool.js"
import type { Service as SandboxService } from "../../../services/Sandbox.js"
import { runBatch } from "./batch.js"
import { type Env, type Operation, showArgs, showExamples } from "./define.js"
import {
  batchMaxFiles,
  batchMaxOps,
  batchReadClipBytes,
  globDefaultResults,
  globMaxResults,
  grepDefaultMatches,
  grepMaxMatches,
  readDefaultBytes,
  readDefaultLines,
  readMaxBytes,
  readMaxLines
} from "./limits.js"
import { fsActions, unifiedNaming } from "./naming.js"
import { inferAction, operations, operationsByAction, takes } from "./operations.js"
import { ByteOffset, Count, EndLine, LineNumber, PathParam, Pattern } from "./params.js"

const flatDocs = {
  path:
    `Used by read, write, edit, check_path (required) and list, glob, grep (optional, default "/"). A path inside the sandbox; "/" is its root.`,
  start_line: "Used by read (optional: selects line mode) and edit (required: the first line replaced). 1-based.",
  end_line: "Used by edit (required): the last line replaced, inclusive; start_line - 1 inserts before start_line.",
  offset: "Used by read (optional, byte mode): the byte offset to start at. Default 0.",
  limit:
    `Used by read (optional): lines in line mode (default ${readDefaultLines}, max ${readMaxLines}), bytes in byte mode (default ${readDefaultBytes}, max ${readMaxBytes}).`,
  line_numbers: `Used by read (optional, byte mode): prefix lines with "<n>|". Default true.`,
  content: `Used by write (required: the whole file) and edit (required: the new lines, without "<n>|" prefixes).`,
  pattern: `Used by glob (required: a glob such as "**/*.ts") and grep (required: an RE2 regular expression).`,
  glob: `Used by grep (optional): only search files whose path matches this glob, e.g. "*.ts".`,
  ignore_case: "Used by grep (optional): match regardless of case. Default false.",
  max_results:
    `Used by glob (default ${globDefaultResults}, max ${globMaxResults}) and grep (default ${grepDefaultMatches}, max ${grepMaxMatches}): results to show.`
}

const flatFields = {
  path: Schema.optional(PathParam.annotations({ description: flatDocs.path })),
  start_line: Schema.optional(LineNumber.annotations({ description: flatDocs.start_line })),
  end_line: Schema.optional(EndLine.annotations({ description: flatDocs.end_line })),
  offset: Schema.optional(ByteOffset.annotations({ description: flatDocs.offset })),
  limit: Schema.optional(Count.annotations({ description: flatDocs.limit })),
  line_numbers: Schema.optional(Schema.Boolean.annotations({ description: flatDocs.line_numbers })),
  content: Schema.optional(Schema.String.annotations({ description: flatDocs.content })),
  pattern: Schema.optional(Pattern.annotations({ description: flatDocs.pattern })),
  glob: Schema.optional(Pattern.annotations({ description: flatDocs.glob })),
  ignore_case: Schema.optional(Schema.Boolean.annotations({ description: flatDocs.ignore_case })),
  max_results: Schema.optional(Count.annotations({ description: flatDocs.max_results }))
}

/** One entry of `ops`: an action and that action's parameters. */
export const OpItem = Schema.Struct({
  action: Schema.optional(
    Schema.Literal(...fsActions).annotations({ description: "Required. The operation, as for a single call." })
  ),
  ...flatFields
})

/** The parameters of the unified `fs` tool. */
export const UnifiedParams = Schema.Struct({
  action: Schema.Literal(...fsActions, "ops").annotations({
    description: `Required. One of ${[...fsActions, "ops"].join(", ")}. The other parameters depend on it.`
  }),
  ...flatFields,
  ops: Schema.optional(
    Schema.Array(OpItem).annotations({
      description:
        `Used by ops (required): up to ${batchMaxOps} operations, each {"action": ..., <its parameters>}, naming at most ${batchMaxFiles} distinct files.`
    })
  ),
  continue_on_error: Schema.optional(
    Schema.Boolean.annotations({
      description: "Used by ops (optional): keep going after a failed op. Default false: stop at the first failure."
    })
  )
})

const indent = (text: string, prefix: string): string =>
  text.split("\n").map((line) => `${prefix}${line}`).join("\n")

const section = (operation: Operation): string => {
  const naming = unifiedNaming
  const required = operation.required.length > 0 ? `Required: ${operation.required.join(", ")}.` : "Required: nothing."
  const optional = operation.optional.length > 0 ? ` Optional: ${operation.optional.join(", ")}.` : ""
  return [
    `  action="${operation.action}"`,
    indent(operation.purpose(naming), "    "),
    `    ${required}${optional}`,
    `    Output: ${operation.output(naming)}`,
    "    Examples:",
    showExamples(naming, operation.action, operation.examples, "      "),
    `    Errors: ${operation.errors(naming)}`
  ].join("\n")
}

const opsExample = {
  action: "ops",
  ops: [
    { action: "edit", path: "/src/app.ts", start_line: 40, end_line: 41, content: "  return total\n}" },
    { action: "edit", path: "/src/app.ts", start_line: 3, end_line: 3, content: "import { sum } from \"./sum.js\"" },
    { action: "write", path: "/src/sum.ts", content: "export const sum = (a: number, b: number) => a + b\n" }
  ]
}

const opsSection = [
  `  action="ops"`,
  `    Run up to ${batchMaxOps} operations in one call. ops is a list of objects, each one action's parameters plus "action" (any action but ops).`,
  `    Required: ops. Optional: continue_on_error (default false: stop at the first failed op).`,
  `    Rules: at most ${batchMaxOps} ops and ${batchMaxFiles} distinct files per call (only read, write, edit and check_path ops count files; list, glob, grep, cwd and sandbox are free).`,
  "    Several edits of one file all use the file's ORIGINAL line numbers, as read before the batch: they run bottom-up (descending start_line), so you need not adjust for lines moving. They must not overlap.",
  "    If any op is invalid, or a cap is exceeded, nothing runs and the error says why.",
  `    Output: a first line "batch: N ops across F files (path1, path2, …)", then per op "[k] <action> <path>: ok" or ": error" followed by its output (successful reads are clipped to ${batchReadClipBytes} bytes; errors are shown in full), then "done: a ok, b failed, c not run.".`,
  "    Example:",
  `      ${showArgs(opsExample)}`
].join("\n")

const description = [
  `Work with files inside the sandbox ("/" is its root; paths cannot leave it): read, write, edit, list, find by name (glob), search contents (grep), check paths, and run many of these in one call (ops).
Pick an action; the parameters needed depend on which action you choose. ${fsActions.length + 1} actions are supported:`,
  ...operations.map(section),
  opsSection,
  `If you leave out action it is inferred when the other parameters make it clear: content -> write (edit with start_line), pattern -> glob or grep, start_line/offset -> read.`
].join("\n\n")

const unknownArguments = (operation: Operation): string =>
  `${operation.action} takes ${takes(operation)}. Example: fs(${
    showArgs(unifiedNaming.example(operation.action, operation.examples[0]?.args ?? {}))
  })`

/** Builds the unified `fs` tool on `sandbox`. */
export const unifiedTool = (sandbox: SandboxService): Tool.Tool => {
  const env: Env = { sandbox, naming: unifiedNaming }
  return Tool.make({
    name: "fs",
    annotations: { readOnly: false, destructive: true },
    description,
    shortDescription:
      `Files in the sandbox: action=${fsActions.join("|")}, or ops for a batch of up to ${batchMaxOps} operations.`,
    parameters: UnifiedParams,
    surface: "unified",
    examples: [{ action: "read", path: "/src/app.ts" }, opsExample],
    inferAction: (args) => ("ops" in args ? "ops" : inferAction(args)),
    handler: (params) => {
      const { action, continue_on_error, ops, ...args } = params
      if (action === "ops") {
        if (ops === undefined) return Tool.fail(`action "ops" needs ops, a list of operations, e.g. ${showArgs(opsExample)}`)
        const stray = Object.keys(args)
        return stray.length > 0
          ? Tool.fail(
            `with action "ops", put ${stray.join(", ")} inside each op, e.g. ${showArgs(opsExample)}`
          )
          : runBatch(env, ops, continue_on_error ?? false)
      }
      const operation = operationsByAction[action]
      if (ops !== undefined || continue_on_error !== undefined) {
        return Tool.fail(`ops and continue_on_error belong to action "ops". ${unknownArguments(operation)}`)
      }
      return Either.match(operation.prepare(args), {
        onLeft: (reason) => Tool.fail(`action "${action}": ${reason}. ${unknownArguments(operation)}`),
        onRight: (prepared) => prepared.run(env)
      })
    }
  })
}
