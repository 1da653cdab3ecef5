/**
 * Where `easyai serve --sessions-dir DIR` keeps its remote sessions: each in
 * its own directory `DIR/<id>/`, as the chat's session file
 * (`.easyai_session`, the same format, written the same atomic way), so a
 * restarted server resumes them.
 *
 * @module
 */
import { Effect, Option, Schema } from "effect"
import { mkdir, readdir, rm, stat } from "node:fs/promises"
import * as path from "node:path"
import { AgentSessionId } from "../../domain/AgentRpc.js"
import type { SessionStore } from "../../services/AgentSessions.js"
import { loadSession, saveSession, sessionFileName } from "../../layers/session/sessionFile.js"

const isSessionId = Schema.is(AgentSessionId)

/** The store in `dir` (created when missing). Ids are checked before they name a path. */
export const directoryStore = (dir: string): SessionStore => {
  const folder = (id: string) => path.join(dir, id)
  const load = (id: string) =>
    Effect.gen(function*() {
      if (!isSessionId(id)) return Option.none()
      const there = yield* Effect.tryPromise(() => stat(path.join(folder(id), sessionFileName))).pipe(Effect.option)
      if (Option.isNone(there)) return Option.none()
      return yield* loadSession(folder(id)).pipe(
        Effect.map(Option.some),
        Effect.catchAll((error) => Effect.as(Effect.logWarning(`session ${id}: ${error.message}`), Option.none()))
      )
    })
  const save = (id: string, history: Parameters<SessionStore["save"]>[1]) =>
    !isSessionId(id)
      ? Effect.void
      : Effect.tryPromise(() => mkdir(folder(id), { recursive: true, mode: 0o700 })).pipe(
        Effect.zipRight(saveSession(folder(id), history)),
        Effect.catchAll((error) => Effect.logWarning(`session ${id} could not be saved: ${String(error)}`))
      )
  const remove = (id: string) =>
    !isSessionId(id) ? Effect.void : Effect.ignore(Effect.tryPromise(() => rm(folder(id), { recursive: true, force: true })))
  const list = Effect.gen(function*() {
    const names = yield* Effect.tryPromise(() => readdir(dir)).pipe(Effect.orElseSucceed((): Array<string> => []))
    const saved = yield* Effect.forEach(names.filter(isSessionId), (id) =>
      Effect.tryPromise(() => stat(path.join(folder(id), sessionFileName))).pipe(
        Effect.map((info) => Option.some({ id, savedAt: info.mtimeMs })),
        Effect.orElseSucceed(() => Option.none<{ readonly id: string; readonly savedAt: number }>())
      ))
    return saved.flatMap(Option.toArray)
  })
  return { load, save, remove, list }
}
