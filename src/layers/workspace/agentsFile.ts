/**
 * The workspace's `AGENTS.md`: standing instructions the operator keeps next
 * to the work, prepended to the system context.
 *
 * The file is read once, when it is loaded; editing it later has no effect
 * until it is loaded again. Its text is trimmed, stripped of control
 * characters other than newline and tab (so an ESC sequence cannot reach an
 * operator's terminal and a stray CR cannot garble the prompt), and capped
 * at {@link agentsFileCap} UTF-8 bytes. A longer file is cut at a character
 * boundary and ends with a note saying so, for the model and the operator.
 *
 * @module
 */
import * as nodePath from "node:path"
import { Effect, Schema } from "effect"
import { sanitizeAddendum } from "../../domain/Sanitize.js"
import { readTextFile } from "./textFile.js"
import { utf8Length } from "../../domain/utf8.js"

/** The file name looked for in the workspace directory, case-sensitive. */
export const agentsFileName = "AGENTS.md"

/** Cap for the `AGENTS.md` text spliced into the system context, in UTF-8 bytes (16 KiB). */
export const agentsFileCap = 16 * 1024

/**
 * How much of `AGENTS.md` is read at most (1 MiB). Enough to fill the cap
 * even when the file is mostly control characters; a larger file is
 * truncated like any other over-size file.
 */
const agentsReadLimit = 1024 * 1024

/** `AGENTS.md` exists but cannot be used. A missing file is not an error. */
export class AgentsFileError extends Schema.TaggedError<AgentsFileError>()("AgentsFileError", {
  path: Schema.String,
  reason: Schema.Literal("NotAFile", "NotUtf8", "Unreadable"),
  detail: Schema.String
}) {
  override get message(): string {
    return `${this.path}: ${this.detail}`
  }
}


/** The rendered text, and whether anything was dropped. */
interface Rendered {
  readonly text: string
  readonly truncated: boolean
}

/**
 * Trims and sanitizes, then cuts to the cap with a closing note when
 * anything was dropped (`wasCut`: the read itself stopped early).
 */
const render = (raw: string, wasCut: boolean): Rendered | undefined => {
  const withoutBom = raw.startsWith("\uFEFF") ? raw.slice(1) : raw
  const clean = sanitizeAddendum(withoutBom, Number.MAX_SAFE_INTEGER).trim()
  if (clean === "") return undefined
  if (!wasCut && utf8Length(clean) <= agentsFileCap) return { text: clean, truncated: false }
  const kept = sanitizeAddendum(clean, agentsFileCap).trimEnd()
  return {
    text: `${kept}\n\n[${agentsFileName} truncated: only its first ${agentsFileCap} bytes are shown]`,
    truncated: true
  }
}

/**
 * Loads `<directory>/AGENTS.md` as the text to prepend to the system
 * context: `undefined` when the file does not exist or is blank. Fails with
 * {@link AgentsFileError} when something is there but cannot be used (a
 * directory, a device, unreadable, not UTF-8), so a broken file is not
 * mistaken for an absent one; callers that prefer to start anyway can
 * `catchTag("AgentsFileError", …)` and log it.
 *
 * The text is trimmed, sanitized with `sanitizeAddendum` and capped at
 * {@link agentsFileCap} bytes; a longer file is cut at a character boundary
 * and ends with `[AGENTS.md truncated: only its first 16384 bytes are
 * shown]`, and the truncation is logged as a warning.
 */
export const loadAgentsFile = (directory: string): Effect.Effect<string | undefined, AgentsFileError> => {
  const path = nodePath.join(directory, agentsFileName)
  return Effect.flatMap(readTextFile(path, agentsReadLimit), (read) => {
    switch (read._tag) {
      case "Missing":
        return Effect.succeed(undefined)
      case "Problem":
        return Effect.fail(new AgentsFileError({ path, reason: read.reason, detail: read.detail }))
      case "Text": {
        const rendered = render(read.text, !read.complete)
        if (rendered === undefined) return Effect.succeed(undefined)
        if (!rendered.truncated) return Effect.succeed(rendered.text)
        const warning = `${agentsFileName} is larger than ${agentsFileCap} bytes; the rest is not shown to the model`
        return Effect.logWarning(warning).pipe(Effect.annotateLogs({ path, size: read.size }), Effect.as(rendered.text))
      }
    }
  })
}
