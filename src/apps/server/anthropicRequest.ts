/**
 * An Anthropic Messages request translated into the server's `ChatCall`:
 * the system text, the conversation (tool_use blocks become the assistant's
 * tool calls, tool_result blocks the tool messages that answer them), the
 * client's tools and tool choice, the sampling and the limits.
 *
 * @module
 */
import { Either } from "effect"
import type { InputMessage, MessagesRequest } from "../../domain/anthropic/Messages.js"
import { AssistantMessage, type ChatMessage, ToolMessage, UserMessage } from "../../domain/Message.js"
import { ToolCall, type ToolSpec } from "../../domain/ToolCall.js"
import type { ToolChoice } from "../../services/ChatModel.js"
import { type ApiError, badRequest } from "./ApiError.js"
import { type ChatCall, declaredToolSpecs, wireSampling } from "./chatRequest.js"

const systemText = (system: MessagesRequest["system"]): string | undefined =>
  system === undefined || system === null ? undefined : typeof system === "string" ? system : system.map((block) => block.text).join("\n")

const toolResultText = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.flatMap((part: unknown) =>
      typeof part === "object" && part !== null && "text" in part && typeof part.text === "string" ? [part.text] : []
    ).join("\n")
    : ""

/** One message's blocks as chat messages; `names` maps tool-use ids to tool names, filled as assistant turns are read. */
const translateMessage = (
  message: InputMessage,
  index: number,
  names: Map<string, string>
): Either.Either<ReadonlyArray<ChatMessage>, ApiError> => {
  if (typeof message.content === "string") {
    return Either.right([message.role === "user" ? new UserMessage({ content: message.content }) : new AssistantMessage({ content: message.content })])
  }
  const texts: Array<string> = []
  const calls: Array<ToolCall> = []
  const results: Array<ToolMessage> = []
  for (const [at, block] of message.content.entries()) {
    const where = `messages[${index}].content[${at}]`
    if (block.type === "text" && "text" in block) texts.push(block.text)
    else if (block.type === "tool_use" && "id" in block && "name" in block && "input" in block) {
      names.set(block.id, block.name)
      calls.push(new ToolCall({ id: block.id, name: block.name, arguments: JSON.stringify(block.input ?? {}) }))
    } else if (block.type === "tool_result" && "tool_use_id" in block) {
      const name = names.get(block.tool_use_id)
      if (name === undefined) return Either.left(badRequest(`${where}: tool_result answers "${block.tool_use_id}", which no earlier tool_use has`, `${where}.tool_use_id`))
      results.push(new ToolMessage({ toolCallId: block.tool_use_id, name, content: toolResultText(block.content), isError: block.is_error === true }))
    } else if (block.type !== "thinking" && block.type !== "redacted_thinking") {
      return Either.left(badRequest(`${where}: only text, tool_use and tool_result blocks are supported (got "${block.type}")`, `${where}.type`))
    }
  }
  if (message.role === "assistant") return Either.right([new AssistantMessage({ content: texts.join(""), toolCalls: calls })])
  const text = texts.join("\n")
  return Either.right([...results, ...(text === "" && results.length > 0 ? [] : [new UserMessage({ content: text })])])
}

const translateToolChoice = (
  choice: MessagesRequest["tool_choice"],
  tools: ReadonlyArray<ToolSpec> | undefined
): Either.Either<ToolChoice | undefined, ApiError> => {
  if (choice === undefined || choice === null) return Either.right(undefined)
  if (!("name" in choice)) return Either.right(choice.type === "none" ? "none" : choice.type === "any" ? "required" : undefined)
  const { name } = choice
  if (tools === undefined || !tools.some((tool) => tool.name === name)) {
    return Either.left(badRequest(`tool_choice names "${name}", which is not among the request's tools`, "tool_choice"))
  }
  return Either.right({ name })
}

/** The request as a `ChatCall`, or a 400 saying what is wrong. */
export const messagesCall = (request: MessagesRequest): Either.Either<ChatCall, ApiError> =>
  Either.gen(function*() {
    const names = new Map<string, string>()
    const messages: Array<ChatMessage> = []
    for (const [index, message] of request.messages.entries()) messages.push(...(yield* translateMessage(message, index, names)))
    const clientTools = request.tools === undefined || request.tools === null || request.tools.length === 0
      ? undefined
      : yield* declaredToolSpecs(request.tools.map((tool, index) => ({
        where: `tools[${index}]`,
        name: tool.name,
        description: tool.description ?? "",
        parameters: tool.input_schema
      })))
    return {
      model: request.model,
      system: systemText(request.system),
      messages,
      clientTools,
      toolChoice: yield* translateToolChoice(request.tool_choice, clientTools),
      responseFormat: undefined,
      preset: undefined,
      sampling: wireSampling(request),
      maxTokens: request.max_tokens,
      stop: request.stop_sequences === undefined || request.stop_sequences === null ? undefined : request.stop_sequences,
      stream: request.stream ?? false,
      streamOptions: { includeUsage: false, events: false, promptProgress: false, toolIndicators: false }
    }
  })
