/**
 * Finding a program on PATH, once, when a tool or the sandbox starts.
 *
 * @module
 */
import { accessSync, constants } from "node:fs"
import * as nodePath from "node:path"

/** The first executable called `name` on this process's PATH; `undefined` when there is none. */
export const findExecutable = (name: string): string | undefined => {
  for (const directory of (process.env["PATH"] ?? "/usr/bin:/bin").split(nodePath.delimiter)) {
    if (directory === "") continue
    const candidate = nodePath.join(directory, name)
    try {
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {
      // not here
    }
  }
  return undefined
}
