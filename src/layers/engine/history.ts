/**
 * Translating a conversation and its tools into node-llama-cpp's shapes.
 *
 * node-llama-cpp keeps a tool round trip inside one model response: the
 * function call and its result sit between the text before and after them.
 * So an assistant message with tool calls, its tool messages and the
 * assistant messages that follow (until the next user message) become one
 * `model` item.
 *
 * @module
 */
import type {
  ChatHistoryItem,
  ChatModelFunctionCall,
  ChatModelFunctions,
  ChatModelResponse,
  ChatWrapper,
  LlamaText
} from "node-llama-cpp"
import type { ChatMessage } from "../../domain/Message.js"
import type { ToolSpec } from "../../domain/ToolCall.js"
import { toGbnfSchema } from "./gbnfSchema.js"
import { Either } from "effect"
import { parseJson } from "../../domain/json.js"

/** The arguments as JSON, or the raw text when they are not JSON. */
const parseArguments = (raw: string): unknown => Either.getOrElse(parseJson(raw), () => raw)

/**
 * The conversation as node-llama-cpp chat history, ending with the model
 * response to be generated (a new, empty one after a user message, or the
 * one being continued after tool results).
 */
export const toChatHistory = (messages: ReadonlyArray<ChatMessage>): Array<ChatHistoryItem> => {
  const history: Array<ChatHistoryItem> = []
  let open: ChatModelResponse | undefined
  const pendingCalls = new Map<string, ChatModelFunctionCall>()
  for (const message of messages) {
    switch (message._tag) {
      case "SystemMessage":
        history.push({ type: "system", text: message.content })
        open = undefined
        break
      case "UserMessage":
        history.push({ type: "user", text: message.content })
        open = undefined
        break
      case "AssistantMessage": {
        if (open === undefined) {
          open = { type: "model", response: [] }
          history.push(open)
        }
        if (message.reasoning !== undefined && message.reasoning !== "") {
          open.response.push({ type: "segment", segmentType: "thought", text: message.reasoning, ended: true })
        }
        if (message.content !== "") open.response.push(message.content)
        for (const call of message.toolCalls) {
          const item: ChatModelFunctionCall = {
            type: "functionCall",
            name: call.name,
            params: parseArguments(call.arguments),
            result: ""
          }
          open.response.push(item)
          pendingCalls.set(call.id, item)
        }
        break
      }
      case "ToolMessage": {
        const call = pendingCalls.get(message.toolCallId)
        if (call !== undefined) call.result = message.content
        pendingCalls.delete(message.toolCallId)
        break
      }
    }
  }
  if (history.at(-1)?.type !== "model") history.push({ type: "model", response: [] })
  return history
}

/** The tools as node-llama-cpp functions, their schemas reduced to what its grammar supports. */
export const toFunctions = (tools: ReadonlyArray<ToolSpec>): ChatModelFunctions =>
  Object.fromEntries(
    tools.map((tool) => [tool.name, { description: tool.shortDescription, params: toGbnfSchema(tool.parameters) }])
  )

/**
 * The prompt a chat wrapper renders for `history` with `functions` offered,
 * exactly as a generation evaluates it: what the KV cache holds, and what
 * a later turn must start with to reuse it.
 */
export const renderPrompt = (
  wrapper: ChatWrapper,
  history: ReadonlyArray<ChatHistoryItem>,
  functions: ChatModelFunctions | undefined
): LlamaText =>
  wrapper.generateContextState({
    chatHistory: [...history],
    ...(functions === undefined ? {} : { availableFunctions: functions, documentFunctionParams: true })
  }).contextText
