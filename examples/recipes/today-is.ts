// Recipe: a tool without parameters. `today_is` tells the model the day of
// the week, from Effect's Clock (so a test can set the time).
//
//   npx tsx examples/recipes/today-is.ts
import { Clock, Effect } from "effect"
import { easyai, Tool } from "easyai"
import { ScriptedChatModel } from "easyai/testing"

const weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]

export const todayIs = Tool.make({
  name: "today_is",
  description: "Return today's day of the week, e.g. \"Saturday\". Takes no parameters.",
  handler: () => Effect.map(Clock.currentTimeMillis, (now) => weekdays[new Date(now).getDay()] ?? "unknown")
})

const agent = easyai.withModel(ScriptedChatModel.layer([
  ScriptedChatModel.toolCall("today_is", {}),
  ScriptedChatModel.reply("Enjoy your day.")
])).addTool(todayIs)

for await (const event of agent.stream("What day is it?")) {
  if (event._tag === "ToolCallFinished") console.log(`today_is: ${event.result.content}`)
  if (event._tag === "TurnComplete") console.log(event.text)
}
await agent.close()
