/**
 * Where things are: `check_path` (does a path exist, and what is it),
 * `cwd` (the process's working directory) and `sandbox` (the root on disk).
 *
 * @module
 */
import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import { Effect, Option, Schema } from "effect"
import { isWithin, toVirtual } from "../../sandbox/paths.js"
import { define } from "./define.js"
import { guarded } from "./failures.js"
import { PathParam } from "./params.js"
import { plural } from "./text.js"
import { statIfExists } from "./write.js"

const checkDocs = {
  path: `Required. The path to check, e.g. "/src/app.ts" or "docs".`
}

/** The parameters of `check_path`. */
export const CheckPathParams = Schema.Struct({
  path: PathParam.annotations({ description: checkDocs.path })
})

/** `check_path`. */
export const checkPath = define({
  action: "check_path",
  parameters: CheckPathParams,
  docs: checkDocs,
  summary: () => "Tell whether a path exists inside the sandbox, and whether it is a file (with its size) or a directory.",
  purpose: (naming) =>
    `Check a path before using it: whether it exists, and whether it is a file or a directory. Cheaper than ${
      naming.call("read")
    } or ${naming.call("list")} when you only need to know that.`,
  output: () =>
    `one line: "<path>: a file of <B> bytes, modified <ISO time>", "<path>: a directory", or "<path>: does not exist" with whether its parent directory exists.`,
  errors: () =>
    "a path that leaves the sandbox (.. above the root, a link pointing outside, a NUL byte) is an error; a missing path is not an error.",
  examples: [{ args: { path: "/src/app.ts" } }, { args: { path: "build" } }],
  target: (params) => ({ path: params.path }),
  run: (env, params) =>
    Effect.gen(function*() {
      const resolved = yield* guarded(env.naming, env.sandbox.resolve(params.path))
      const path = resolved.virtual
      const info = yield* guarded(env.naming, statIfExists(env.sandbox, path))
      if (Option.isSome(info)) {
        const { modifiedMillis, size, type } = info.value
        return type === "File"
          ? `${path}: a file of ${plural(size, "byte")}, modified ${new Date(modifiedMillis).toISOString()}`
          : type === "Directory"
          ? `${path}: a directory`
          : `${path}: exists, but is neither a file nor a directory (a device, socket or pipe)`
      }
      const parent = nodePath.posix.dirname(path)
      const parentInfo = yield* guarded(env.naming, statIfExists(env.sandbox, parent))
      const about = Option.match(parentInfo, {
        onNone: () => `its parent ${parent} does not exist either`,
        onSome: (found) =>
          found.type === "Directory"
            ? `its parent directory ${parent} exists`
            : `${parent} is a file, not a directory`
      })
      return `${path}: does not exist (${about})`
    })
})

/** `cwd`. */
export const cwd = define({
  action: "cwd",
  parameters: Schema.Struct({}),
  docs: {},
  summary: (naming) =>
    `The process's current working directory, as a sandbox path when it is inside the sandbox (the root on disk: ${
      naming.call("sandbox")
    }).`,
  purpose: (naming) =>
    `Tell the process's current working directory: as a sandbox path ("/…") when it lies inside the sandbox, otherwise as a host path with a note that it is outside. It can differ from the sandbox root; fs paths are always resolved against the sandbox root ("/"), never against it. For the root itself on disk use ${
      naming.call("sandbox")
    }.`,
  output: () => `one line, e.g. "the working directory is /build (inside the sandbox; on disk /home/me/project/build)".`,
  errors: () => "none: an unreadable working directory is reported as such.",
  examples: [{ args: {} }],
  run: (env) =>
    Effect.gen(function*() {
      const current = yield* Effect.try(() => process.cwd()).pipe(Effect.option)
      if (Option.isNone(current)) {
        return `the working directory cannot be read (it may have been deleted); fs paths are resolved against the sandbox root "/".`
      }
      // Compare canonical paths: the sandbox root has its links resolved.
      const real = yield* Effect.tryPromise(() => fs.realpath(current.value)).pipe(
        Effect.orElseSucceed(() => current.value)
      )
      return isWithin(env.sandbox.root, real)
        ? `the working directory is ${toVirtual(env.sandbox.root, real)} (inside the sandbox; on disk ${real})`
        : `the working directory is outside the sandbox: ${real} on disk. fs paths are resolved against the sandbox root "/" (${env.sandbox.root} on disk), not against it.`
    })
})

/** `sandbox`. */
export const sandbox = define({
  action: "sandbox",
  parameters: Schema.Struct({}),
  docs: {},
  summary: () => `The sandbox root's absolute path on disk: what "/" means, for shell commands that need host paths.`,
  purpose: () =>
    `Tell where the sandbox root ("/" in every fs path) is on disk. Use it when a shell command needs absolute host paths: "/src/app.ts" here is "<root>/src/app.ts" there.`,
  output: () => `one line: "the sandbox root is <absolute path> on disk; ...".`,
  errors: () => "none.",
  examples: [{ args: {} }],
  run: (env) =>
    Effect.succeed(
      `the sandbox root is ${env.sandbox.root} on disk; fs paths are relative to it ("/" is this directory, "/src/app.ts" is ${
        nodePath.join(env.sandbox.root, "src", "app.ts")
      }).`
    )
})
