/**
 * Takes the web UI screenshots in docs/ (a desktop and a phone viewport):
 * `easyai serve`'s app on a scripted model that answers with reasoning, a
 * tool call and some Markdown, in Debian's Chromium (or EASYAI_CHROMIUM).
 *
 *   npm run build && npm run docs:screenshots
 */
import { HttpServer } from "@effect/platform"
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Schema } from "effect"
import { ServerLive, Tool, Usage } from "easyai"
import { ScriptedChatModel } from "easyai/testing"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { chromium } from "playwright-core"

const docs = fileURLToPath(new URL("../docs/", import.meta.url))

const weather = Tool.make({
  name: "weather",
  description: "The weather in a city.",
  parameters: Schema.Struct({ city: Schema.String }),
  handler: ({ city }) => Effect.succeed(`${city}: 23 °C, sunny, light wind from the north-west`)
})

const answer = `In **Lisbon** it is 23 °C and sunny — a good afternoon to walk along the river.

| when | what |
|---|---|
| 16:00 | Belém, by tram 15 |
| 18:30 | sunset at the Miradouro |

To check it again from a script:

\`\`\`ts
const reply = await agent.ask("Weather in Lisbon?")
console.log(reply)
\`\`\`
`

const turns = (): ReadonlyArray<ScriptedChatModel.Turn> => [
  [
    ...ScriptedChatModel.reasoning("The user wants the weather; ", "the weather tool knows it."),
    ScriptedChatModel.call("weather", { city: "Lisbon" })
  ],
  [
    ...ScriptedChatModel.reply(answer),
    new Usage({ promptTokens: 1210, completionTokens: 96, contextUsed: 1306, contextSize: 8192, tokensPerSecond: 24.7 })
  ]
]

const shoot = (url: string, name: string, viewport: { readonly width: number; readonly height: number }) =>
  Effect.promise(async () => {
    const browser = await chromium.launch({ executablePath: process.env["EASYAI_CHROMIUM"] ?? "/usr/bin/chromium", args: ["--no-sandbox"] })
    try {
      const page = await browser.newPage({ viewport, deviceScaleFactor: 2, colorScheme: "light" })
      await page.goto(url)
      await page.locator(`[data-testid="composer"]`).fill("What's the weather in Lisbon this afternoon?")
      await page.locator(`[data-testid="composer"]`).press("Enter")
      await page.locator(`[data-testid="message"][data-role="assistant"][data-state="done"]`).waitFor()
      const file = path.join(docs, `${name}.png`)
      await page.screenshot({ path: file })
      console.log(file)
    } finally {
      await browser.close()
    }
  })

const shots = [
  ["webui-desktop", { width: 1280, height: 800 }],
  ["webui-phone", { width: 390, height: 844 }]
] as const

const program = Effect.forEach(shots, ([name, viewport]) =>
  Effect.gen(function*() {
    const { address } = yield* HttpServer.HttpServer
    if (address._tag !== "TcpAddress") return yield* Effect.dieMessage("the server is not on TCP")
    yield* shoot(`http://127.0.0.1:${address.port}/`, name, viewport)
  }).pipe(Effect.provide(ServerLive.layer({
    model: ScriptedChatModel.layer(turns()),
    session: { withDefaultTools: false, tools: [weather] },
    server: { modelAlias: "qwen2.5-7b-instruct" },
    listen: { port: 0 }
  }))))

NodeRuntime.runMain(program)
