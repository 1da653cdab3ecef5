// A bare chat: no tools, no built-in system prompt, just a conversation
// that remembers what was said. Against an OpenAI-compatible server when a
// URL is given, else a scripted model.
//
//   npx tsx examples/chat.ts [BASE_URL MODEL]
import { easyai } from "easyai"
import { ScriptedChatModel } from "easyai/testing"

const [url, name] = process.argv.slice(2)
const base = url === undefined
  ? easyai.withModel(ScriptedChatModel.layer([ScriptedChatModel.reply("Hello, Ada."), ScriptedChatModel.reply("Your name is Ada.")]))
  : easyai.remote(url, name)
const agent = base.withDefaultTools(false).noBuiltinSystem().system("You are a friendly, brief assistant.")

console.log(await agent.ask("Hi, I am Ada."))
console.log(await agent.ask("What is my name?"))
console.log(`${(await agent.history()).length} messages in the conversation`)
await agent.close()
