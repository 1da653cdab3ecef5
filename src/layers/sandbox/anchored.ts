/**
 * Reaching a path under the sandbox root without a check-then-use window.
 *
 * Checking a path (realpath, then "is it under the root?") and then opening
 * it by name leaves a gap: a directory renamed away and replaced by a
 * symbolic link to the outside between the two makes the open land outside.
 * Here every component is opened relative to the directory already opened
 * before it, with `O_NOFOLLOW | O_DIRECTORY`, so the kernel never follows a
 * link on our behalf: a link found on the way is read and its target walked
 * again from the root, component by component, the same way, and refused
 * when it leaves the root. Whatever is swapped in meanwhile, each step stays
 * inside a directory that is inside the root.
 *
 * node has no `openat(2)`; on Linux `/proc/self/fd/<fd>/<name>` resolves
 * `<name>` inside the directory descriptor `<fd>` holds, which is the same.
 * Where `/proc` is missing, directories are reached by their path under the
 * root instead: the same walk with the same refusals, but a swap between two
 * steps can go unnoticed (see docs/fs-tools.md).
 *
 * @module
 */
import { constants } from "node:fs"
import * as fs from "node:fs/promises"
import * as nodePath from "node:path"
import { isWithin } from "./paths.js"
import { errorCode } from "../../domain/errorText.js"

/** A directory under the root, held open. */
export interface OpenDirectory {
  readonly handle: fs.FileHandle
  /** Where it is: its components under the root, links resolved (`[]` is the root). */
  readonly components: ReadonlyArray<string>
}

/** How paths under the root are reached. */
export interface Tree {
  /** The root on the host (absolute, canonical). */
  readonly root: string
  /** Whether descriptors anchor the walk (Linux `/proc`), or paths do (the weaker fallback). */
  readonly anchored: boolean
  /** A host path naming `name` inside `dir`, resolved by the kernel inside that very directory. */
  readonly at: (dir: OpenDirectory, name: string) => string
  /** A host path naming `dir` itself. */
  readonly self: (dir: OpenDirectory) => string
}

/** A symbolic link under the root that leads outside it (or `..` above the root through one). */
export class LinkEscape extends Error {
  constructor() {
    super("a symbolic link leads outside the sandbox")
  }
}

/** Links one resolution may pass through, as the kernel's own limit. */
const maxLinks = 40

const directoryFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_NONBLOCK

const tooManyLinks = (): Error =>
  Object.assign(new Error("too many levels of symbolic links"), { code: "ELOOP" })

/**
 * A tree rooted at `root` (absolute, canonical), anchored on descriptors
 * where the system allows and `descriptors` is not false.
 */
export const makeTree = async (root: string, descriptors = true): Promise<Tree> => {
  if (!descriptors) return pathTree(root)
  const proc = (dir: OpenDirectory) => `/proc/self/fd/${dir.handle.fd}`
  const handle = await fs.open(root, directoryFlags)
  let anchored = false
  try {
    const [own, seen] = await Promise.all([handle.stat(), fs.stat(proc({ handle, components: [] }))])
    anchored = own.ino === seen.ino && own.dev === seen.dev
  } catch {
    anchored = false // no /proc: fall back to paths
  } finally {
    await handle.close()
  }
  return anchored ? { root, anchored, at: (dir, name) => `${proc(dir)}/${name}`, self: proc } : pathTree(root)
}

/** The fallback: each step named by its path under the root. */
const pathTree = (root: string): Tree => {
  const pathOf = (dir: OpenDirectory) => nodePath.join(root, ...dir.components)
  return { root, anchored: false, at: (dir, name) => nodePath.join(pathOf(dir), name), self: pathOf }
}

const openDirectory = async (path: string, components: ReadonlyArray<string>): Promise<OpenDirectory> => ({
  handle: await fs.open(path, directoryFlags),
  components
})

/** The root, opened. */
export const openRoot = (tree: Tree): Promise<OpenDirectory> => openDirectory(tree.root, [])

/** Asks the walk to follow the symbolic link `name` in the directory at hand. */
export interface Follow {
  readonly _tag: "Follow"
  readonly target: string
}

/** Reads the link `name` in `dir`, to be followed. */
export const follow = async (tree: Tree, dir: OpenDirectory, name: string): Promise<Follow> => ({
  _tag: "Follow",
  target: await fs.readlink(tree.at(dir, name))
})

/** Whether a step answered {@link follow}. */
export const isFollow = (value: unknown): value is Follow =>
  typeof value === "object" && value !== null && "_tag" in value && value._tag === "Follow"

/**
 * A subdirectory of `dir`, opened without following a link; a link is
 * reported to be followed. With `create`, a missing one is made first.
 */
export const openChild = async (
  tree: Tree,
  dir: OpenDirectory,
  name: string,
  create: boolean
): Promise<OpenDirectory | Follow> => {
  const path = tree.at(dir, name)
  const components = [...dir.components, name]
  try {
    return await openDirectory(path, components)
  } catch (error) {
    const code = errorCode(error)
    if (code === "ENOENT" && create) {
      try {
        await fs.mkdir(path, 0o755) // mkdir never follows a link in its last component
      } catch (made) {
        if (errorCode(made) !== "EEXIST") throw made // someone else made it meanwhile: open theirs
      }
      return openChild(tree, dir, name, false)
    }
    // O_DIRECTORY | O_NOFOLLOW on a link fails with ELOOP or ENOTDIR: tell a link from a file.
    if (code !== "ELOOP" && code !== "ENOTDIR") throw error
    if (!(await fs.lstat(path)).isSymbolicLink()) throw error
    return follow(tree, dir, name)
  }
}

/**
 * The components, from the root, of a link's target; `dir` holds the link.
 * A relative target keeps its `..` for the walk to take physically.
 */
const targetComponents = async (tree: Tree, dir: OpenDirectory, target: string): Promise<ReadonlyArray<string>> => {
  if (!nodePath.isAbsolute(target)) return [...dir.components, ...target.split("/")]
  if (isWithin(tree.root, target)) return nodePath.relative(tree.root, target).split(nodePath.sep)
  // The root spelled another way (through a linked parent of the root) still names the root.
  const real = await fs.realpath(target).catch(() => undefined)
  if (real !== undefined && isWithin(tree.root, real)) return nodePath.relative(tree.root, real).split(nodePath.sep)
  throw new LinkEscape()
}

/** A directory that holds the last component of a path, and that component (`undefined`: the directory itself). */
export interface Located {
  /** Open; whoever receives it closes it. */
  readonly dir: OpenDirectory
  readonly name: string | undefined
}

/**
 * Walks `components` from the root, each directory opened inside the one
 * before, following links that stay inside the root, and hands the last
 * step to `last`: it answers with a value, or with {@link follow} when the
 * last component is a link, which is then walked too. With `create`,
 * missing directories on the way are made. Throws {@link LinkEscape} when a
 * link leads outside, node's errors otherwise.
 */
export const walkTo = <A>(
  tree: Tree,
  components: ReadonlyArray<string>,
  create: boolean,
  last: (located: Located) => Promise<A | Follow>
): Promise<A> => walk(tree, components, create, last, false)

/** The walk; with `keep`, the last directory stays open when `last` answers with a value. */
const walk = async <A>(
  tree: Tree,
  components: ReadonlyArray<string>,
  create: boolean,
  last: (located: Located) => Promise<A | Follow>,
  keep: boolean
): Promise<A> => {
  let kept = false
  let pending = [...components]
  let links = 0
  let dir = await openRoot(tree)
  const moveTo = async (next: OpenDirectory) => {
    const previous = dir
    dir = next
    await previous.handle.close()
  }
  const restart = async (next: ReadonlyArray<string>) => {
    links += 1
    if (links > maxLinks) throw tooManyLinks()
    pending = [...next]
    await moveTo(await openRoot(tree))
  }
  try {
    for (;;) {
      const name = pending.shift()
      if (name === "" || name === ".") continue
      if (name === "..") {
        // Only a link's target holds "..": the model's own paths are lexically resolved first.
        if (dir.components.length === 0) throw new LinkEscape()
        const parent = dir.components.slice(0, -1)
        pending = [...parent, ...pending]
        await moveTo(await openRoot(tree))
        continue
      }
      if (name === undefined || pending.every((rest) => rest === "" || rest === ".")) {
        const outcome = await last({ dir, name })
        if (!isFollow(outcome)) {
          kept = keep
          return outcome
        }
        await restart(await targetComponents(tree, dir, outcome.target))
        continue
      }
      const child = await openChild(tree, dir, name, create)
      if (isFollow(child)) await restart([...(await targetComponents(tree, dir, child.target)), ...pending])
      else await moveTo(child)
    }
  } finally {
    if (!kept) await dir.handle.close()
  }
}

/**
 * As {@link walkTo}, but hands over the located directory itself, open,
 * once `check` accepts the last component (it answers {@link follow} for a
 * link); the caller closes it.
 */
export const locate = (
  tree: Tree,
  components: ReadonlyArray<string>,
  create: boolean,
  check: (located: Located) => Promise<Follow | undefined>
): Promise<Located> =>
  walk(tree, components, create, async (located) => (await check(located)) ?? located, true)
