import { Effect, Schema } from "effect"
import { Tool } from "easyai"
import type { ChatCompletionFunctionTool } from "openai/resources/chat/completions"

/** `echo`: returns its text. */
export const echo = Tool.make({
  name: "echo",
  description: "Echo the text back.\nRequired: text.",
  parameters: Schema.Struct({ text: Schema.String }),
  handler: ({ text }) => Effect.succeed(text)
})

/** A tool of a given name and surface that answers with its own name. */
export const named = (name: string, surface: Tool.ToolSurface = "always", systemAddendum?: string) =>
  Tool.make({
    name,
    description: `The ${name} tool.`,
    surface,
    ...(systemAddendum === undefined ? {} : { systemAddendum }),
    handler: () => Effect.succeed(name)
  })

/** A client-side `get_weather`, as an OpenAI client declares it in a request's `tools`. */
export const weather: ChatCompletionFunctionTool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "The weather in a city.",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }
  }
}
