// An agent with every built-in tool plus a custom one: the default tools
// (datetime, plan, web, tool_lookup), the file tools, bash and evaluate in a
// sandbox, the memory tools, the system_* observability tools and a tool of
// our own. The scripted model calls two of them and answers; swap the Layer
// for easyai.local(...) or easyai.remote(...) and nothing else changes.
//
//   npx tsx examples/agent.ts [SANDBOX_DIR] [MEMORY_DIR]
import { Effect, Schema } from "effect"
import { easyai, systemTools, Tool } from "easyai"
import { ScriptedChatModel } from "easyai/testing"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"

const sandbox = process.argv[2] ?? mkdtempSync(path.join(tmpdir(), "easyai-agent-"))
const memory = process.argv[3] ?? mkdtempSync(path.join(tmpdir(), "easyai-memory-"))

const shout = Tool.make({
  name: "shout",
  description: "Repeat a text in capitals. Example: {\"text\": \"hello\"}",
  parameters: Schema.Struct({ text: Schema.String.annotations({ description: "Required. The text to shout." }) }),
  handler: ({ text }) => Effect.succeed(text.toUpperCase())
})

const model = ScriptedChatModel.layer([
  ScriptedChatModel.toolCall("shout", { text: "tools ready" }),
  ScriptedChatModel.toolCall("fs_write", { path: "/note.md", content: "written by the agent\n" }),
  ScriptedChatModel.reply("Done: shouted and wrote /note.md.")
])

let agent = easyai.withModel(model).sandbox(sandbox).allowBash().memory(memory).addTool(shout)
for (const tool of systemTools) agent = agent.addTool(tool)

// The system prompt ends with the catalogue: "Active tools:", then "- name — what it does" per tool.
const catalogue = (await agent.renderSystem()).split("Active tools:\n")[1] ?? ""
const tools = catalogue.split("\n").filter((line) => line.startsWith("- ")).map((line) => line.slice(2).split(" — ")[0])
console.log(`tools: ${tools.join(", ")}`)
for await (const event of agent.stream("Get ready, then leave a note.")) {
  if (event._tag === "ToolCallFinished") console.log(`[${event.call.name}] ${event.result.content.split("\n")[0]}`)
  if (event._tag === "TurnComplete") console.log(event.text)
}
await agent.close()
