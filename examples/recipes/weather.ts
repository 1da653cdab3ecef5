// Recipe: a tool that calls an HTTP API. `get_weather` asks a weather
// service for a city's current conditions through @effect/platform's
// HttpClient, and turns every failure into a message the model can act on.
//
//   npx tsx examples/recipes/weather.ts API_BASE_URL CITY
//
// The API answers GET {API_BASE_URL}/current?city=Paris with
// {"city": "Paris", "temperature_c": 18.5, "conditions": "light rain"}.
import { FetchHttpClient, HttpClient, HttpClientResponse } from "@effect/platform"
import { Effect, Schema } from "effect"
import { easyai, Tool } from "easyai"
import { ScriptedChatModel } from "easyai/testing"

const [api = "http://127.0.0.1:8080", city = "Paris"] = process.argv.slice(2)

const Current = Schema.Struct({ city: Schema.String, temperature_c: Schema.Number, conditions: Schema.String })

const getWeather = Tool.make({
  name: "get_weather",
  description: "Current weather in a city: temperature in °C and conditions. Example: {\"city\": \"Paris\"}",
  parameters: Schema.Struct({
    city: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100)).annotations({
      description: "Required. The city's name, e.g. \"Paris\"."
    })
  }),
  annotations: { readOnly: true, openWorld: true },
  handler: ({ city }) =>
    Effect.gen(function*() {
      const client = (yield* HttpClient.HttpClient).pipe(HttpClient.filterStatusOk)
      const url = new URL("/current", api)
      url.searchParams.set("city", city)
      const current = yield* client.get(url).pipe(
        Effect.flatMap(HttpClientResponse.schemaBodyJson(Current)),
        Effect.timeout("10 seconds")
      )
      return `${current.city}: ${current.temperature_c} °C, ${current.conditions}`
    }).pipe(
      Effect.scoped,
      Effect.provide(FetchHttpClient.layer),
      // Whatever went wrong, the model reads one line and can try another city or say so.
      Effect.catchAll((error) => Tool.fail(`the weather service could not answer for "${city}" (${error._tag}); try again later or another city`))
    )
})

const agent = easyai.withModel(ScriptedChatModel.layer([
  ScriptedChatModel.toolCall("get_weather", { city }),
  ScriptedChatModel.reply("There you go.")
])).addTool(getWeather)

for await (const event of agent.stream(`What is the weather in ${city}?`)) {
  if (event._tag === "ToolCallFinished") console.log(`${event.result.isError ? "error" : "weather"}: ${event.result.content}`)
  if (event._tag === "TurnComplete") console.log(event.text)
}
await agent.close()
