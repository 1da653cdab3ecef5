/**
 * One fs operation, defined once: its parameters, its manual and its run.
 * {@link define} turns a definition into both what the split surface needs
 * (a focused tool) and what the unified surface and the `ops` batch need
 * (decoding a flat argument object into a ready-to-run op).
 *
 * @module
 */
import { Either, type Effect, Schema } from "effect"
import type { ToolFailure } from "../../../domain/errors.js"
import * as Tool from "../../../domain/Tool.js"
import type { Service as SandboxService } from "../../../services/Sandbox.js"
import { type FsAction, type Naming, splitNaming } from "./naming.js"

/** What an operation runs against. */
export interface Env {
  readonly sandbox: SandboxService
  readonly naming: Naming
}

/** The file an op names, for the batch's file cap and edit ordering. */
export interface Target {
  readonly path: string
  /** For an edit: the original lines it replaces (`end = start - 1` inserts). */
  readonly lines?: { readonly start: number; readonly end: number }
}

/** An example call, with what it does. */
export interface Example {
  readonly args: Readonly<Record<string, unknown>>
  readonly note?: string
}

/** Everything that defines an operation. */
export interface Definition<A, I> {
  readonly action: FsAction
  /** A `Schema.Struct` whose field descriptions are the matching {@link docs} entries. */
  readonly parameters: Schema.Schema<A, I, never>
  /** Parameter name → `Required. …` or `Optional. …`, in the order the manual lists them. */
  readonly docs: Readonly<Record<string, string>>
  /** The one-line trigger. */
  readonly summary: (naming: Naming) => string
  /** What it does and when to use it, in a sentence or three. */
  readonly purpose: (naming: Naming) => string
  /** The output shape. */
  readonly output: (naming: Naming) => string
  /** Error and edge-case behaviour. */
  readonly errors: (naming: Naming) => string
  readonly examples: ReadonlyArray<Example>
  /** The file the op names, if it names one that counts against the batch's file cap. */
  readonly target?: (params: A) => Target
  readonly run: (env: Env, params: A) => Effect.Effect<string, ToolFailure>
}

/** An op decoded from arguments and ready to run. */
export interface Prepared {
  readonly action: FsAction
  readonly target: Target | undefined
  readonly run: (env: Env) => Effect.Effect<string, ToolFailure>
}

/** A defined operation, its parameter type erased so every operation fits one list. */
export interface Operation {
  readonly action: FsAction
  readonly required: ReadonlyArray<string>
  readonly optional: ReadonlyArray<string>
  readonly examples: ReadonlyArray<Example>
  readonly summary: (naming: Naming) => string
  readonly purpose: (naming: Naming) => string
  readonly output: (naming: Naming) => string
  readonly errors: (naming: Naming) => string
  /** The full manual of the split tool. */
  readonly manual: (naming: Naming) => string
  /** Decodes flat arguments (no `action`); the failure says what is wrong. */
  readonly prepare: (args: Readonly<Record<string, unknown>>) => Either.Either<Prepared, string>
  /** The split-surface tool `fs_<action>`. */
  readonly tool: (sandbox: SandboxService) => Tool.Tool
}

/** An argument object as the model would write it: `{"path": "/a.txt", "limit": 10}`. */
export const showArgs = (args: Readonly<Record<string, unknown>>): string =>
  `{${Object.entries(args).map(([key, value]) => `${JSON.stringify(key)}: ${JSON.stringify(value)}`).join(", ")}}`

/** Example lines, each `<args>  -> note`, indented. */
export const showExamples = (
  naming: Naming,
  action: FsAction,
  examples: ReadonlyArray<Example>,
  indent: string
): string =>
  examples
    .map((example) => {
      const call = showArgs(naming.example(action, example.args))
      return `${indent}${call}${example.note === undefined ? "" : `  -> ${example.note}`}`
    })
    .join("\n")

const parameterBlock = (docs: Readonly<Record<string, string>>): string => {
  const names = Object.keys(docs)
  if (names.length === 0) return "Parameters: none."
  const width = Math.max(...names.map((name) => name.length)) + 2
  return ["Parameters:", ...names.map((name) => `  ${name.padEnd(width)}${docs[name] ?? ""}`)].join("\n")
}

/** Defines an operation. */
export const define = <A, I>(definition: Definition<A, I>): Operation => {
  const names = Object.keys(definition.docs)
  const decode = Schema.decodeUnknownEither(definition.parameters, { errors: "all", onExcessProperty: "error" })
  const jsonSchema = Tool.parametersJsonSchema(definition.parameters)
  const manual = (naming: Naming): string =>
    [
      definition.purpose(naming),
      parameterBlock(definition.docs),
      `Output: ${definition.output(naming)}`,
      `Examples:\n${showExamples(naming, definition.action, definition.examples, "  ")}`,
      `Errors: ${definition.errors(naming)}`
    ].join("\n\n")
  return {
    action: definition.action,
    required: names.filter((name) => definition.docs[name]?.startsWith("Required") === true),
    optional: names.filter((name) => definition.docs[name]?.startsWith("Required") !== true),
    examples: definition.examples,
    summary: definition.summary,
    purpose: definition.purpose,
    output: definition.output,
    errors: definition.errors,
    manual,
    prepare: (args) =>
      Either.match(decode(args), {
        onLeft: (error) => Either.left(Tool.explainDecodeFailure(jsonSchema, args)(error)),
        onRight: (params) =>
          Either.right({
            action: definition.action,
            target: definition.target?.(params),
            run: (env: Env) => definition.run(env, params)
          })
      }),
    tool: (sandbox) =>
      Tool.make({
        name: splitNaming.call(definition.action),
        description: manual(splitNaming),
        shortDescription: definition.summary(splitNaming),
        parameters: definition.parameters,
        surface: "split",
        annotations: definition.action === "write" || definition.action === "edit"
          ? { readOnly: false, destructive: true }
          : { readOnly: true },
        examples: definition.examples.map((example) => example.args),
        handler: (params) => definition.run({ sandbox, naming: splitNaming }, params)
      })
  }
}
