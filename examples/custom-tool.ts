// A ten-line custom tool, and the agent loop calling it: no Effect needed.
// The parameters are a zod schema (any Standard Schema library works, or a
// plain JSON Schema); the handler returns a value or a Promise. The scripted
// model plays a tool-calling model: first it calls roll_dice, then it answers
// with what the tool returned.
import { easyai, tool } from "easyai"
import { ScriptedChatModel } from "easyai/testing"
import { z } from "zod"

const rollDice = tool({
  name: "roll_dice",
  description: "Roll one die with the given number of sides. Example: {\"sides\": 6}",
  parameters: z.object({ sides: z.int().min(2).max(100).describe("Required. Sides, 2 to 100.") }),
  handler: async ({ sides }) => `rolled ${sides} on a ${sides}-sided die` // a loaded die: deterministic
})

const model = ScriptedChatModel.layer([
  ScriptedChatModel.toolCall("roll_dice", { sides: "20" }), // a small model quoting a number: forgiven
  ScriptedChatModel.reply("You rolled a 20.")
])

const agent = easyai.withModel(model).addTool(rollDice)
for await (const event of agent.stream("Roll a d20 for me.")) {
  if (event._tag === "ToolCallFinished") console.log(`[${event.call.name}] ${event.result.content}`)
  if (event._tag === "TurnComplete") console.log(event.text)
}
await agent.close()
