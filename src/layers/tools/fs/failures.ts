/**
 * Turning the sandbox's typed errors into what the model reads: the error
 * itself, then what to do about it.
 *
 * @module
 */
import { Effect } from "effect"
import { type FileError, type SandboxViolation, ToolFailure } from "../../../domain/errors.js"
import type { Naming } from "./naming.js"

/** What a sandbox operation can fail with. */
export type SandboxFailure = SandboxViolation | FileError

const advice = (naming: Naming, error: SandboxFailure): string => {
  if (error._tag === "SandboxViolation") {
    switch (error.reason) {
      case "Escape":
        return `"/" is the sandbox root and ".." cannot climb above it. Use a path inside it, such as "/notes.txt" or "src/app.ts".`
      case "SymlinkEscape":
        return `Paths may not pass through a link that points outside the sandbox. Use a path that stays inside; ${
          naming.call("sandbox")
        } tells where the root is on disk.`
      case "NulByte":
        return "Remove the NUL character from the path and call again."
      case "Empty":
        return `Give a path such as "/notes.txt" ("/" is the sandbox root).`
    }
  }
  switch (error.reason) {
    case "NotFound":
      return `Check the name with ${naming.call("list")} on the parent directory, or search for it with ${
        naming.call("glob")
      }.`
    case "NotAFile":
      return `See what it holds with ${naming.call("list")}.`
    case "NotRegular":
      return `Only regular files are read and written; named pipes, sockets and devices are refused. See what the directory holds with ${
        naming.call("list")
      }.`
    case "NotADirectory":
      return `Give a directory; read a file with ${naming.call("read")}.`
    case "TooLarge":
      return `Read it in parts with ${naming.call("read")} (start_line or offset).`
    case "PermissionDenied":
      return "The agent's user may not access it; pick another path."
    case "AlreadyExists":
    case "Io":
      return "Check the path and try again."
  }
}

/** The teaching failure for a sandbox error: its message, then what to do. */
export const teach = (naming: Naming) => (error: SandboxFailure): ToolFailure =>
  new ToolFailure({ message: `${error.message}. ${advice(naming, error)}` })

/** Runs a sandbox operation, failing with the teaching message. */
export const guarded = <A>(
  naming: Naming,
  effect: Effect.Effect<A, SandboxFailure>
): Effect.Effect<A, ToolFailure> => Effect.mapError(effect, teach(naming))
