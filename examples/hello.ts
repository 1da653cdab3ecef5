// The three-line hello. The scripted model stands in for a real one here, so
// this runs anywhere; swap the Layer for a local or remote model and nothing
// else changes.
import { easyai } from "easyai"
import { ScriptedChatModel } from "easyai/testing"

const agent = easyai.withModel(ScriptedChatModel.layer([ScriptedChatModel.reply("2 + 2 = 4.")]))
console.log(await agent.ask("What is 2+2?"))
await agent.close()
