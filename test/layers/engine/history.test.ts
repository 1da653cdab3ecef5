import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { AssistantMessage, SystemMessage, Tool, ToolCall, ToolMessage, UserMessage } from "easyai"
import { Effect } from "effect"
import { toGbnfSchema } from "../../../src/layers/engine/gbnfSchema.js"
import { toChatHistory, toFunctions } from "../../../src/layers/engine/history.js"

describe("toChatHistory", () => {
  it("opens an empty model response after a user message", () => {
    expect(toChatHistory([new SystemMessage({ content: "S" }), new UserMessage({ content: "U" })])).toEqual([
      { type: "system", text: "S" },
      { type: "user", text: "U" },
      { type: "model", response: [] }
    ])
  })

  it("keeps a tool round trip inside one model response, results filled in, and continues it", () => {
    const call = new ToolCall({ id: "c1", name: "pick", arguments: `{"color":"red"}` })
    const history = toChatHistory([
      new UserMessage({ content: "Pick" }),
      new AssistantMessage({ content: "Picking.", reasoning: "they want red", toolCalls: [call] }),
      new ToolMessage({ toolCallId: "c1", name: "pick", content: "RED" })
    ])
    expect(history).toEqual([
      { type: "user", text: "Pick" },
      {
        type: "model",
        response: [
          { type: "segment", segmentType: "thought", text: "they want red", ended: true },
          "Picking.",
          { type: "functionCall", name: "pick", params: { color: "red" }, result: "RED" }
        ]
      }
    ])
  })

  it("keeps the final answer in the same model response and starts a new one after the next user turn", () => {
    const call = new ToolCall({ id: "c1", name: "t", arguments: "not json" })
    const history = toChatHistory([
      new UserMessage({ content: "Q" }),
      new AssistantMessage({ content: "", toolCalls: [call] }),
      new ToolMessage({ toolCallId: "c1", name: "t", content: "R" }),
      new AssistantMessage({ content: "A" }),
      new UserMessage({ content: "Q2" })
    ])
    expect(history).toEqual([
      { type: "user", text: "Q" },
      { type: "model", response: [{ type: "functionCall", name: "t", params: "not json", result: "R" }, "A"] },
      { type: "user", text: "Q2" },
      { type: "model", response: [] }
    ])
  })
})

describe("tool schemas for the grammar", () => {
  it("turns anyOf into oneOf and gives a typeless schema every plain type", () => {
    expect(toGbnfSchema({
      type: "object",
      required: ["a"],
      properties: { a: { anyOf: [{ type: "number" }, { type: "null" }] }, b: {}, c: { type: "integer", minimum: 1 } },
      additionalProperties: false,
      title: "ignored"
    })).toEqual({
      type: "object",
      properties: {
        a: { oneOf: [{ type: "number" }, { type: "null" }] },
        b: { type: ["string", "number", "boolean", "null"] },
        c: { type: "integer" }
      },
      additionalProperties: false
    })
  })

  it("offers tools as functions with their one-line description", () => {
    const pick = Tool.make({
      name: "pick",
      description: "Pick a color.\nLong manual.",
      parameters: Schema.Struct({ color: Schema.Literal("red", "blue") }),
      handler: () => Effect.succeed("")
    })
    expect(toFunctions([pick.spec])).toEqual({
      pick: {
        description: "Pick a color.",
        params: {
          type: "object",
          properties: { color: { type: "string", enum: ["red", "blue"] } },
          additionalProperties: false
        }
      }
    })
  })
})
