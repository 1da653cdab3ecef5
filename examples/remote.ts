// Any OpenAI-compatible endpoint, tools running locally:
//   npx tsx examples/remote.ts http://127.0.0.1:8080/v1 my-model
// The API key, when the server needs one, comes from EASYAI_API_KEY.
import { easyai } from "easyai"

const agent = easyai.remote(process.argv[2] ?? "http://127.0.0.1:8080/v1", process.argv[3] ?? "easyai")
console.log(await agent.ask("What is 2+2?"))
await agent.close()
