// The agent of an easyai server, driven from here: its model, tools and sandbox run on the server.
//   easyai serve -m model.gguf --sandbox ./work --allow-bash --api-key "$KEY" --sessions-dir ./sessions
//   EASYAI_API_KEY="$KEY" npx tsx examples/remote-agent.ts http://127.0.0.1:8080 "What time is it?"
import { ApprovalLive, easyai } from "easyai"

const [url = "http://127.0.0.1:8080", question = "What time is it?"] = process.argv.slice(2)
const agent = easyai.connect(url, { apiKey: process.env["EASYAI_API_KEY"] ?? "" })
  // The server asks before each tool call: the clock may run; anything else is declined (no one is here to ask).
  .approval(ApprovalLive.policy({ autoApprove: ["datetime"] }))

for await (const event of agent.stream(question)) {
  if (event._tag === "ToolCallStarted") console.log(`[${event.call.name}] ${event.call.arguments}`)
  if (event._tag === "TurnComplete") console.log(event.text)
}
console.log(`session ${await agent.sessionId()}`)
await agent.close()
