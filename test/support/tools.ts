import { Effect, Schema } from "effect"
import { Tool } from "easyai"

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
