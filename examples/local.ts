// A real model, in-process: pass the path of any GGUF file.
//   npx tsx examples/local.ts path/to/model.gguf
import { easyai } from "easyai"

const agent = easyai.local(process.argv[2] ?? "model.gguf")
console.log(await agent.ask("Once upon a time", { maxTokens: 48 }))
await agent.close()
