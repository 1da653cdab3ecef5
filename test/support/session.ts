import { Layer } from "effect"
import { ScriptedChatModel, type SessionLive, SessionStack } from "easyai"

/** A session on a scripted model; the script's recorder is exposed too (the model Layer is built once). */
export const scriptedSession = (turns: ReadonlyArray<ScriptedChatModel.Turn>, session: SessionLive.Config = {}) => {
  const model = ScriptedChatModel.layer(turns)
  return Layer.merge(SessionStack.layer({ model, session, preamble: { timeZone: "UTC" } }), model)
}
