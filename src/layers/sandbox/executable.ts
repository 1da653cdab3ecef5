/**
 * Finding a program on PATH, once, when a tool or the sandbox starts.
 *
 * @module
 */
import { Effect } from "effect"
import { accessSync, constants } from "node:fs"
import { access } from "node:fs/promises"
import * as nodePath from "node:path"
import { ProcessError } from "../../domain/errors.js"
import { errorCode } from "../../domain/errorText.js"

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

/**
 * Whether `command` can be started, failing as node's spawn would
 * (`spawn <command> ENOENT`): a wrapper such as bwrap would otherwise turn
 * a missing program into an ordinary exit status.
 */
export const checkLaunchable = (command: string): Effect.Effect<void, ProcessError> =>
  Effect.tryPromise({
    try: () => access(command, constants.X_OK),
    catch: (error) => {
      const code = errorCode(error)
      return new ProcessError({ command, detail: `spawn ${command} ${typeof code === "string" ? code : String(error)}` })
    }
  })
