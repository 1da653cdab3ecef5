// A real model, in-process: pass the path of any GGUF file.
//   npx tsx examples/local.ts path/to/model.gguf
// The default tools (datetime, plan, web, tool_lookup) need a few thousand tokens of prompt; the tiny
// test models have a 2k window and cannot call tools anyway, so this example leaves them out.
import { easyai } from "easyai"

const agent = easyai.local(process.argv[2] ?? "model.gguf").withDefaultTools(false)
console.log(await agent.ask("Once upon a time", { maxTokens: 48 }))
await agent.close()
