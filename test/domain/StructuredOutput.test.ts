import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { easyai, OutputDecodeError, outputFormat } from "easyai"
import { ScriptedChatModel } from "easyai/testing"
import { z } from "zod"

const Mood = Schema.Struct({ mood: Schema.Literal("happy", "sad") })

describe("answers in a shape", () => {
  it("asks for JSON of the schema, from an Effect Schema or a zod one", () => {
    expect(outputFormat(Mood)).toMatchObject({
      type: "json_schema",
      name: "answer",
      schema: { type: "object", properties: { mood: { enum: ["happy", "sad"] } }, required: ["mood"] }
    })
    expect(outputFormat(z.object({ n: z.number() })).schema).toMatchObject({ type: "object", properties: { n: { type: "number" } } })
  })

  it.live("ask({ output }) sends the format and decodes the answer; a wrong answer is an OutputDecodeError with the text", () =>
    Effect.promise(async () => {
      const model = ScriptedChatModel.layer([
        ScriptedChatModel.reply(`{"mood":"sad"}`),
        ScriptedChatModel.reply(`{"mood":"angry"}`),
        ScriptedChatModel.reply("I feel fine.")
      ])
      await using agent = easyai.withModel(model).withDefaultTools(false)
      expect(await agent.ask("How do you feel?", { output: Mood })).toEqual({ mood: "sad" })
      const wrongShape = await agent.ask("Again?", { output: Mood }).catch((error: unknown) => error)
      expect(wrongShape).toBeInstanceOf(OutputDecodeError)
      expect(wrongShape).toMatchObject({ text: `{"mood":"angry"}` })
      const notJson = await agent.ask("And now?", { output: Mood }).catch((error: unknown) => error)
      expect(notJson).toMatchObject({ _tag: "OutputDecodeError", reason: "it is not JSON", text: "I feel fine." })
    }))
})
