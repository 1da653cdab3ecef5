/**
 * The conversation saved next to where the chat runs (`.easyai_session`),
 * so `--continue` picks it up. It is written after every turn and every
 * tool result, atomically (a temporary file renamed over the old one): a
 * crash or Ctrl+C never leaves a torn file, only the last complete state.
 * The temporary files a killed writer left behind are removed when the file
 * is next loaded or saved (`sessionTemp.ts` says which ones may go).
 *
 * @module
 */
import { Effect, Schema } from "effect"
import { readFile, rm } from "node:fs/promises"
import * as path from "node:path"
import { ConfigurationError } from "../../domain/errors.js"
import { ChatMessage } from "../../domain/Message.js"
import { sessionFileName } from "./sessionFileName.js"
import { removeOrphans, temporaryName } from "./sessionTemp.js"
import { writeAtomically } from "../files/atomicWrite.js"

export { sessionFileName }

const SessionFile = Schema.Struct({
  version: Schema.Literal(1),
  history: Schema.Array(ChatMessage)
})

const encode = Schema.encodeSync(Schema.parseJson(SessionFile, { space: 2 }))
const decode = Schema.decodeUnknownEither(Schema.parseJson(SessionFile))

/** The saved conversation in `dir`, or an empty one when there is none. */
export const loadSession = (dir: string): Effect.Effect<ReadonlyArray<ChatMessage>, ConfigurationError> =>
  Effect.gen(function*() {
    yield* removeOrphans(dir)
    const file = path.join(dir, sessionFileName)
    const text = yield* Effect.tryPromise(() => readFile(file, "utf8")).pipe(Effect.orElseSucceed(() => undefined))
    if (text === undefined) return []
    const parsed = decode(text)
    if (parsed._tag === "Left") {
      return yield* new ConfigurationError({ message: `${file} is not a saved easyai conversation; move it away to start afresh` })
    }
    return parsed.right.history
  })

/** Saves `history` in `dir`, replacing the previous file in one rename. */
export const saveSession = (dir: string, history: ReadonlyArray<ChatMessage>): Effect.Effect<void> => {
  const file = path.join(dir, sessionFileName)
  const temporary = path.join(dir, temporaryName())
  return writeAtomically(temporary, file, `${encode({ version: 1, history })}\n`, { mode: 0o600 }).pipe(
    Effect.catchAll((error) =>
      Effect.zipRight(
        Effect.ignore(Effect.tryPromise(() => rm(temporary, { force: true }))),
        Effect.logWarning(`the conversation could not be saved to ${file}: ${String(error)}`)
      )),
    Effect.zipRight(removeOrphans(dir))
  )
}
