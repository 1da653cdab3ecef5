/**
 * Resolving the model's paths against the sandbox root: lexically first
 * (component by component: `.` dropped, `..` never above the root, absolute
 * paths re-rooted, NUL refused), then on disk (symbolic links followed only
 * while they stay under the root, compared on whole path components so
 * `/srv/user` never admits `/srv/userX`).
 *
 * @module
 */
import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import { Effect, Either } from "effect"
import { SandboxViolation } from "../../domain/errors.js"
import type { ResolvedPath } from "../../services/Sandbox.js"

/** The components of a model path inside the virtual root, or why it is not one. */
export const lexicalComponents = (path: string): Either.Either<ReadonlyArray<string>, SandboxViolation> => {
  if (path.includes("\0")) return Either.left(new SandboxViolation({ path, reason: "NulByte" }))
  const stack: Array<string> = []
  for (const component of path.split("/")) {
    if (component === "" || component === ".") continue
    if (component === "..") {
      if (stack.length === 0) return Either.left(new SandboxViolation({ path, reason: "Escape" }))
      stack.pop()
    } else stack.push(component)
  }
  return Either.right(stack)
}

/** Whether `candidate` is `root` or lies under it, on whole path components. */
export const isWithin = (root: string, candidate: string): boolean =>
  candidate === root || candidate.startsWith(root.endsWith(nodePath.sep) ? root : root + nodePath.sep)

/**
 * Resolves the existing part of `real` through its symbolic links and keeps
 * the rest as it is: what the path will point at once created.
 */
const canonical = (real: string): Effect.Effect<string> =>
  Effect.promise(async () => {
    let existing = real
    const rest: Array<string> = []
    while (true) {
      try {
        const resolved = await fs.realpath(existing)
        return nodePath.join(resolved, ...rest.reverse())
      } catch {
        const parent = nodePath.dirname(existing)
        if (parent === existing) return real
        rest.push(nodePath.basename(existing))
        existing = parent
      }
    }
  })

/** Resolves a model path under `root` (itself absolute and canonical). */
export const resolvePath = (root: string, path: string): Effect.Effect<ResolvedPath, SandboxViolation> =>
  Effect.gen(function*() {
    const components = yield* lexicalComponents(path)
    const real = yield* canonical(nodePath.join(root, ...components))
    if (!isWithin(root, real)) return yield* new SandboxViolation({ path, reason: "SymlinkEscape" })
    return { virtual: `/${components.join("/")}`, real }
  })

/** The model's view of a host path under `root`. */
export const toVirtual = (root: string, real: string): string => {
  const relative = nodePath.relative(root, real)
  return relative === "" ? "/" : `/${relative.split(nodePath.sep).join("/")}`
}
