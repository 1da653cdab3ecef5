/**
 * `write`: a whole file, replaced atomically, parents created.
 *
 * @module
 */
import * as nodePath from "node:path"
import { Effect, Option, Schema } from "effect"
import * as Tool from "../../../domain/Tool.js"
import type { FileInfo, Service as SandboxService } from "../../../services/Sandbox.js"
import { define } from "./define.js"
import { guarded, type SandboxFailure } from "./failures.js"
import { PathParam } from "./params.js"
import { plural, splitLines } from "./text.js"
import { utf8Length } from "../../../domain/utf8.js"

/** What is at `path`, or nothing when it does not exist. */
export const statIfExists = (
  sandbox: SandboxService,
  path: string
): Effect.Effect<Option.Option<FileInfo>, SandboxFailure> =>
  sandbox.stat(path).pipe(
    Effect.map(Option.some),
    Effect.catchIf(
      (error) => error._tag === "FileError" && error.reason === "NotFound",
      () => Effect.succeed(Option.none())
    )
  )

const docs = {
  path: `Required. The file to create or replace, e.g. "/notes/todo.md". Missing parent directories are created.`,
  content: `Required. The whole new content of the file ("" makes it empty).`
}

/** The parameters of `write`. */
export const WriteParams = Schema.Struct({
  path: PathParam.annotations({ description: docs.path }),
  content: Schema.String.annotations({ description: docs.content })
})

/** `write`. */
export const write = define({
  action: "write",
  parameters: WriteParams,
  docs,
  summary: (naming) =>
    `Create or replace a whole text file (atomic; parent directories created). To change some lines use ${
      naming.call("edit")
    }.`,
  purpose: (naming) =>
    `Create a file, or replace a whole file, with the given content. The write is atomic: the content goes to a temporary file that is then renamed into place, so nobody sees half a file. Missing parent directories are created.
To change a few lines of an existing file, use ${naming.call("edit")} instead of rewriting it.`,
  output: () =>
    `one line: "wrote <B> bytes (<N> lines) to <path>", then "(new file)" or "(replaced <B> bytes)", and whether parent directories were created.`,
  errors: () =>
    "a path outside the sandbox, or a path that is a directory, is an error saying what to do; nothing is written then.",
  examples: [
    { args: { path: "/notes/todo.md", content: "# TODO\n- write tests\n" }, note: "creates /notes if missing" },
    { args: { path: "/config.json", content: "{\"debug\": true}\n" } }
  ],
  target: (params) => ({ path: params.path }),
  run: (env, params) =>
    Effect.gen(function*() {
      const resolved = yield* guarded(env.naming, env.sandbox.resolve(params.path))
      const path = resolved.virtual
      const existing = yield* guarded(env.naming, statIfExists(env.sandbox, path))
      if (Option.isSome(existing) && existing.value.type === "Directory") {
        return yield* Tool.fail(
          `${path} is a directory; write needs a file path inside it, such as "${path === "/" ? "" : path}/file.txt".`
        )
      }
      const parent = nodePath.posix.dirname(path)
      const parentExisted = Option.isSome(yield* guarded(env.naming, statIfExists(env.sandbox, parent)))
      yield* guarded(env.naming, env.sandbox.writeFile(path, params.content))
      const bytes = utf8Length(params.content)
      const before = Option.match(existing, {
        onNone: () => "new file",
        onSome: (info) => `replaced ${plural(info.size, "byte")}`
      })
      return `wrote ${plural(bytes, "byte")} (${plural(splitLines(params.content).length, "line")}) to ${path} (${before}${
        parentExisted ? "" : `; created ${parent}`
      })`
    })
})
