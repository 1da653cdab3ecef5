/**
 * `POST /v1/chat/completions` bodies: the Schema of what OpenAI clients
 * send, and its translation into the conversation, tools and shapers the
 * model runs with. Fields the server does not use are ignored, as OpenAI
 * servers do; fields it uses are checked, and a bad one is a 400 naming it.
 *
 * Decisions a client can observe:
 * - `system` and `developer` messages: the last one is the system prompt
 *   that reaches the model (earlier ones are dropped); none → the server's.
 * - Penalties in the body are ignored: they are operator-tuned guardrails.
 * - An inline preset prefix in the last user message ("creative 0.9 …")
 *   is peeled off and applied; body sampling fields still win over it.
 * - `preset` in the body (an easyai extension) picks the request's preset
 *   when the message has no prefix: a client's setting, with the user's
 *   text left alone.
 *
 * @module
 */
import { Either, Option } from "effect"
import { ChatCompletionBody, type WireMessage, type WireResponseFormat, type WireTool } from "../../domain/openai/ChatCompletions.js"
import { AssistantMessage, type ChatMessage, ToolMessage, UserMessage } from "../../domain/Message.js"
import type { ResponseFormat } from "../../domain/ResponseFormat.js"
import { parsePresetPrefix, PresetName, type SamplingOverrides } from "../../domain/Sampling.js"
import { isValidName } from "../../domain/Tool.js"
import { ToolCall, ToolSpec } from "../../domain/ToolCall.js"
import type { ToolChoice } from "../../services/ChatModel.js"
import { type ApiError, badRequest } from "./ApiError.js"
import { decodeRequestBody } from "./jsonBody.js"


/** What the client asked to see in a stream. */
export interface StreamOptions {
  readonly includeUsage: boolean
  /** Send the `easyai.*` events; when the body leaves it out, the `X-Easyai-Events` header decides. */
  readonly events: boolean | undefined
  readonly promptProgress: boolean
  readonly toolIndicators: boolean
}

/** A chat request, translated. */
export interface ChatCall {
  readonly model: string | undefined
  /** The client's system prompt, when it sent one. */
  readonly system: string | undefined
  /** The conversation without system messages. */
  readonly messages: ReadonlyArray<ChatMessage>
  /** The client's own tools: when present the model runs one pass and the calls go back to the client. */
  readonly clientTools: ReadonlyArray<ToolSpec> | undefined
  readonly toolChoice: ToolChoice | undefined
  /** The shape of the answer; free text when absent. */
  readonly responseFormat: ResponseFormat | undefined
  /** The preset of an inline prefix when the last user message had one, else the body's `preset`. */
  readonly preset: PresetName | undefined
  /** Shaper overrides: the prefix's temperature, then the body's fields. */
  readonly sampling: SamplingOverrides
  readonly maxTokens: number | undefined
  readonly stop: ReadonlyArray<string> | undefined
  readonly stream: boolean
  readonly streamOptions: StreamOptions
}

const textOf = (content: WireMessage["content"], where: string): Either.Either<string, ApiError> => {
  if (content === undefined || content === null) return Either.right("")
  if (typeof content === "string") return Either.right(content)
  const texts: Array<string> = []
  for (const [index, part] of content.entries()) {
    if (part.type !== "text" || part.text === undefined) {
      return Either.left(badRequest(`${where}.content[${index}]: only text parts are supported (got "${part.type}")`, `${where}.content`))
    }
    texts.push(part.text)
  }
  return Either.right(texts.join("\n"))
}

const argumentsText = (value: unknown): string =>
  value === undefined || value === null ? "{}" : typeof value === "string" ? value : JSON.stringify(value)

const translateMessages = (wire: ReadonlyArray<WireMessage>) =>
  Either.gen(function*() {
    let system: string | undefined
    const messages: Array<ChatMessage> = []
    const toolNames = new Map<string, string>()
    for (const [index, message] of wire.entries()) {
      const where = `messages[${index}]`
      const text = yield* textOf(message.content, where)
      switch (message.role) {
        case "system":
        case "developer":
          system = text
          break
        case "user":
          messages.push(new UserMessage({ content: text }))
          break
        case "assistant": {
          const calls = (message.tool_calls ?? []).map((call) =>
            new ToolCall({ id: call.id, name: call.function.name, arguments: argumentsText(call.function.arguments) })
          )
          for (const call of calls) toolNames.set(call.id, call.name)
          const reasoning = message.reasoning_content ?? undefined
          messages.push(new AssistantMessage({ content: text, toolCalls: calls, ...(reasoning === undefined ? {} : { reasoning }) }))
          break
        }
        case "tool": {
          const id = message.tool_call_id ?? undefined
          if (id === undefined || id === "") {
            return yield* Either.left(badRequest(`${where}: a tool message needs tool_call_id`, `${where}.tool_call_id`))
          }
          messages.push(new ToolMessage({ toolCallId: id, name: toolNames.get(id) ?? message.name ?? "", content: text }))
          break
        }
      }
    }
    if (messages.length === 0) {
      return yield* Either.left(badRequest("messages holds only system messages; add a user message", "messages"))
    }
    return { system, messages }
  })

/** A tool a request declares, whatever its protocol's shape; `where` names it in errors. */
export interface DeclaredTool {
  readonly where: string
  readonly name: string
  readonly description: string
  readonly parameters: Readonly<Record<string, unknown>> | undefined
}

/** The request's tools as specs, or a 400 naming the first bad one: an invalid or repeated name, parameters not an object. */
export const declaredToolSpecs = (declared: ReadonlyArray<DeclaredTool>) =>
  Either.gen(function*() {
    const specs: Array<ToolSpec> = []
    const seen = new Set<string>()
    for (const { description, name, parameters: declaredParameters, where } of declared) {
      if (!isValidName(name)) {
        return yield* Either.left(
          badRequest(`${where}.name: "${name.slice(0, 80)}" is not a valid function name (1–64 of a-z A-Z 0-9 _ -)`, `${where}.name`)
        )
      }
      if (seen.has(name)) return yield* Either.left(badRequest(`${where}.name: "${name}" is declared twice`, `${where}.name`))
      seen.add(name)
      const parameters = declaredParameters ?? { type: "object", properties: {} }
      const type = parameters["type"]
      if (type !== undefined && type !== "object") {
        return yield* Either.left(
          badRequest(`${where}.parameters: the parameters schema must describe an object (got type ${JSON.stringify(type)})`, `${where}.parameters`)
        )
      }
      const properties = parameters["properties"]
      if (properties !== undefined && (typeof properties !== "object" || properties === null || Array.isArray(properties))) {
        return yield* Either.left(badRequest(`${where}.parameters.properties must be an object`, `${where}.parameters`))
      }
      specs.push(new ToolSpec({ name, description, shortDescription: description, parameters }))
    }
    return specs
  })

const translateTools = (wire: ReadonlyArray<typeof WireTool.Type>) =>
  declaredToolSpecs(wire.map((tool, index) => ({
    where: `tools[${index}].function`,
    name: tool.function.name,
    description: tool.function.description ?? "",
    parameters: tool.function.parameters ?? undefined
  })))

const translateToolChoice = (
  choice: ChatCompletionBody["tool_choice"],
  tools: ReadonlyArray<ToolSpec> | undefined
): Either.Either<ToolChoice | undefined, ApiError> => {
  if (choice === undefined || choice === null) return Either.right(undefined)
  if (typeof choice === "string") return Either.right(choice)
  const name = choice.function.name
  if (tools === undefined || !tools.some((tool) => tool.name === name)) {
    return Either.left(badRequest(`tool_choice names "${name}", which is not among the request's tools`, "tool_choice"))
  }
  return Either.right({ name })
}

/** Peels an inline preset prefix off the last message when it is the user's. */
const peelPreset = (messages: ReadonlyArray<ChatMessage>) => {
  const last = messages.at(-1)
  if (last?._tag !== "UserMessage") return { messages, prefix: Option.none() }
  const prefix = parsePresetPrefix(last.content).pipe(Option.filter((parsed) => parsed.text.trim() !== ""))
  if (Option.isNone(prefix)) return { messages, prefix }
  return { messages: [...messages.slice(0, -1), new UserMessage({ content: prefix.value.text })], prefix }
}

/** The shapers a request sets, by the snake_case names OpenAI, Anthropic and Ollama share; absent or null ones left out. */
export interface WireShapers {
  readonly temperature?: number | null | undefined
  readonly top_p?: number | null | undefined
  readonly top_k?: number | null | undefined
  readonly min_p?: number | null | undefined
}

/** The request's shapers as overrides of the preset's. */
export const wireSampling = (wire: WireShapers): SamplingOverrides => {
  const sampling: { -readonly [P in keyof SamplingOverrides]?: SamplingOverrides[P] } = {}
  if (wire.temperature !== undefined && wire.temperature !== null) sampling.temperature = wire.temperature
  if (wire.top_p !== undefined && wire.top_p !== null) sampling.topP = wire.top_p
  if (wire.top_k !== undefined && wire.top_k !== null) sampling.topK = wire.top_k
  if (wire.min_p !== undefined && wire.min_p !== null) sampling.minP = wire.min_p
  return sampling
}

/** A schema-less `json_schema` format asks for JSON, as `json_object` does. */
const translateResponseFormat = (format: typeof WireResponseFormat.Type | null | undefined): ResponseFormat | undefined => {
  if (format === null || format === undefined || format.type === "text") return undefined
  if (format.type === "json_object") return { type: "json_object" }
  const schema = format.json_schema.schema
  return schema === null || schema === undefined
    ? { type: "json_object" }
    : { type: "json_schema", name: format.json_schema.name, schema }
}

/** Translates a parsed JSON body, or says what is wrong with it (400). */
export const parseChatCall = (json: unknown): Either.Either<ChatCall, ApiError> =>
  Either.gen(function*() {
    const body = yield* decodeRequestBody(ChatCompletionBody, json)
    const translated = yield* translateMessages(body.messages)
    const clientTools = body.tools === undefined || body.tools === null || body.tools.length === 0
      ? undefined
      : yield* translateTools(body.tools)
    const toolChoice = yield* translateToolChoice(body.tool_choice, clientTools)
    const peeled = peelPreset(translated.messages)
    // An inline prefix's temperature, under the body's own shapers.
    const prefixTemperature = Option.flatMap(peeled.prefix, (prefix) => prefix.temperature)
    const sampling = { ...wireSampling({ temperature: Option.getOrUndefined(prefixTemperature) }), ...wireSampling(body) }
    const options = body.stream_options ?? undefined
    const stop = body.stop ?? undefined
    return {
      model: body.model ?? undefined,
      system: translated.system,
      messages: peeled.messages,
      clientTools,
      toolChoice,
      responseFormat: translateResponseFormat(body.response_format),
      preset: Option.isSome(peeled.prefix) ? peeled.prefix.value.preset : body.preset ?? undefined,
      sampling,
      maxTokens: body.max_completion_tokens ?? body.max_tokens ?? undefined,
      stop: stop === undefined ? undefined : typeof stop === "string" ? [stop] : stop,
      stream: body.stream ?? false,
      streamOptions: {
        includeUsage: options?.include_usage ?? false,
        events: options?.easyai_events ?? undefined,
        promptProgress: options?.easyai_prompt_progress ?? true,
        toolIndicators: options?.easyai_tool_indicators ?? false
      }
    }
  })
