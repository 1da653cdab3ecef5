/**
 * A model for the Session conformance suite that answers from the request
 * alone, so the same conversation plays the same way on a local session, an
 * in-process server and a server in another process (restarts included):
 *
 * | the newest message | the model |
 * |---|---|
 * | a tool result | `tool said: <its first 60 characters>` |
 * | `echo <text>` | answers `<text>`, word by word |
 * | `count` | `you said <n> things` (the user messages it was sent) |
 * | `time yes` / `time no` | calls `datetime`, with the call id `call_yes` / `call_no` |
 * | `slow <seconds>` | calls `bash` with `sleep <seconds>` |
 */
import { Effect, Layer, Stream } from "effect"
import { ChatModel, type ChatRequest, type ModelEvent } from "easyai"
import { ScriptedChatModel } from "easyai/testing"
import { withoutClock } from "./server.js"

const userText = (request: ChatRequest): string | undefined => {
  const last = request.messages.at(-1)
  return last?._tag === "UserMessage" ? withoutClock(last.content) : undefined
}

const reply = (text: string) => [...ScriptedChatModel.reply(text), ScriptedChatModel.finish("stop")]

const answer = (request: ChatRequest): ReadonlyArray<ScriptedChatModel.Step> => {
  const last = request.messages.at(-1)
  if (last?._tag === "ToolMessage") return reply(`tool said: ${last.content.slice(0, 60)}`)
  const text = userText(request) ?? ""
  if (text.startsWith("echo ")) return reply(text.slice(5))
  if (text === "count") {
    return reply(`you said ${request.messages.filter((message) => message._tag === "UserMessage").length} things`)
  }
  if (text === "time yes" || text === "time no") {
    return [ScriptedChatModel.call("datetime", {}, `call_${text.slice(5)}`), ScriptedChatModel.finish("tool_calls")]
  }
  if (text.startsWith("slow ")) {
    return [ScriptedChatModel.call("bash", { command: `sleep ${text.slice(5)}` }, "call_slow"), ScriptedChatModel.finish("tool_calls")]
  }
  return reply(`I do not know "${text}"`)
}

/** The conformance model. */
export const conversationModel: Layer.Layer<ChatModel> = Layer.succeed(ChatModel, {
  info: Effect.succeed({ name: "conversation", backend: "scripted" }),
  stream: (request) =>
    Stream.fromIterable(answer(request)).pipe(
      Stream.filter((step): step is ModelEvent => step._tag !== "Delay" && step._tag !== "Fail")
    )
})
