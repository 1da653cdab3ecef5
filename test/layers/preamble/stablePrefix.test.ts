/**
 * The prompt a local model evaluates is byte-stable across the turns of a
 * conversation, for every chat template node-llama-cpp resolves for the test
 * models, and for a ChatML (Qwen-style) Jinja template that renders the tool
 * schemas into the system message.
 *
 * A real `Session` (on a scripted model, which records what it is asked)
 * holds a conversation at two clock times an hour apart; each turn's request
 * is rendered with the model's own chat wrapper, the way the engine renders
 * it. Turn N's prompt up to the end of its newest user message (with the
 * clock note it was sent with) must be a byte prefix of turn N+1's prompt:
 * that is the part of the KV cache turn N+1 reuses.
 */
import { describe, expect, layer } from "@effect/vitest"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { Effect, TestClock } from "effect"
import { type ChatRequest, Engine, EngineLive, Session } from "easyai"
import { ScriptedChatModel as Scripted } from "easyai/testing"
import { resolveChatWrapper } from "node-llama-cpp"
import { renderPrompt, toChatHistory, toFunctions } from "../../../src/layers/engine/history.js"
import { engineConfig, type TestModel, testModels } from "../../support/models.js"
import { scriptedSession } from "../../support/session.js"
import { tinyGgufBytes } from "../../support/tinyGguf.js"

/** A Qwen2.5-style ChatML template: with tools, their JSON schemas go into the system message. */
const chatMlWithTools = `{%- if tools %}<|im_start|>system
{%- if messages[0]['role'] == 'system' %}
{{ messages[0]['content'] }}
{%- endif %}

# Tools

You may call one or more functions. Function signatures are within <tools></tools>:
<tools>
{%- for tool in tools %}
{{ tool | tojson }}
{%- endfor %}
</tools>

For each call, return <tool_call>{"name": <function-name>, "arguments": <args-json-object>}</tool_call><|im_end|>
{% elif messages[0]['role'] == 'system' %}<|im_start|>system
{{ messages[0]['content'] }}<|im_end|>
{% endif %}
{%- for message in messages %}
{%- if message.role == "user" or (message.role == "assistant" and not message.tool_calls) %}<|im_start|>{{ message.role }}
{{ message.content }}<|im_end|>
{% elif message.role == "assistant" %}<|im_start|>assistant
{%- if message.content %}
{{ message.content }}
{%- endif %}
{%- for tool_call in message.tool_calls %}
<tool_call>
{"name": "{{ tool_call.function.name }}", "arguments": {{ tool_call.function.arguments | tojson }}}
</tool_call>
{%- endfor %}<|im_end|>
{% elif message.role == "tool" %}<|im_start|>user
<tool_response>
{{ message.content }}
</tool_response><|im_end|>
{% endif %}
{%- endfor %}
{%- if add_generation_prompt %}<|im_start|>assistant
{% endif %}`

const chatMlModel = (): TestModel => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "easyai-chatml-")), "easyai-tiny-chatml.gguf")
  writeFileSync(file, tinyGgufBytes(7, "llama", { chatTemplate: chatMlWithTools }))
  return { name: "easyai-tiny ChatML with tools in the system message (generated)", path: file }
}

const questions = ["What time is it in Lisbon?", "And in Tokyo?", "Thanks, and tomorrow?"]

/** The conversation: with tools the first turn calls `datetime` before it answers. */
const turns = (withTools: boolean): ReadonlyArray<Scripted.Turn> => [
  ...(withTools ? [Scripted.toolCall("datetime", {})] : []),
  Scripted.reply("It is noon."),
  Scripted.reply("It is evening there."),
  Scripted.reply("Same time tomorrow.")
]

const recorded = Effect.flatMap(Scripted.ScriptedChatModel, (recorder) => recorder.requests)

/** Each turn's first request (the one that ends with the user's message), rendered as the engine renders it. */
const renderedTurns = Effect.gen(function*() {
  const { model } = (yield* Engine).native
  const wrapper = resolveChatWrapper(model)
  const firsts = (yield* recorded).filter((request) => request.messages.at(-1)?._tag === "UserMessage")
  const render = (request: ChatRequest) =>
    renderPrompt(
      wrapper,
      toChatHistory(request.messages),
      request.tools.length === 0 ? undefined : toFunctions(request.tools)
    ).toString()
  return { wrapper: wrapper.wrapperName, prompts: firsts.map(render) }
})

/** Holds the conversation, an hour (and a few seconds) of clock between turns. */
const converse = Effect.gen(function*() {
  const session = yield* Session
  yield* TestClock.setTime(Date.UTC(2026, 10, 23, 9, 0, 0))
  for (const question of questions) {
    yield* session.chat(question)
    yield* TestClock.adjust("1 hour")
    yield* TestClock.adjust("17 seconds")
  }
})

/** A clock note as the preamble writes it: `Sent: 2026-11-23 09:00 +0000 (UTC)`, or `Sent: 10:00` later that day. */
const clock = /Sent: (?:\d{4}-\d{2}-\d{2} )?\d{2}:\d{2}(?: [+-]\d{4} \([^)\n]*\))?/g

const assertStable = (prompts: ReadonlyArray<string>, withTools: boolean) => {
  expect(prompts).toHaveLength(questions.length)
  for (let turn = 0; turn + 1 < prompts.length; turn++) {
    const current = prompts[turn] ?? ""
    const next = prompts[turn + 1] ?? ""
    // Every user message carries the time it was sent, and the clock moved between turns.
    const notes = current.match(clock) ?? []
    expect(notes).toHaveLength(turn + 1)
    expect(new Set(notes).size).toBe(turn + 1)
    // The first tells the day, and the others, on the same day, the time alone.
    expect(notes.map((note) => /^Sent: \d{4}-/.test(note))).toEqual(notes.map((_, index) => index === 0))
    const newestNote = notes.at(-1) ?? ""
    const noteAt = current.lastIndexOf(newestNote)
    expect(noteAt).toBeGreaterThan(current.lastIndexOf(questions[turn] ?? ""))
    // The system prompt, the tool schemas, every earlier turn and the newest
    // user message with its note: a byte prefix of the next turn's prompt.
    const kept = current.slice(0, noteAt + newestNote.length)
    expect(kept).toContain("# AUTHORITATIVE DATE/TIME")
    if (withTools) expect(kept).toContain("datetime")
    expect(next.startsWith(kept)).toBe(true)
  }
}

const models: ReadonlyArray<TestModel> = [...testModels, chatMlModel()]

describe("the rendered prompt is byte-stable across the turns of a conversation", () => {
  for (const model of models) {
    layer(EngineLive.layer(engineConfig(model, { contextSize: 4096 })), { timeout: 120_000 })(model.name, (it) => {
      for (const withTools of [true, false]) {
        it.effect(`${withTools ? "with the default tools" : "without tools"}: turn N's prompt through its newest user message starts turn N+1's`, () =>
          Effect.gen(function*() {
            yield* converse
            const { prompts } = yield* renderedTurns
            assertStable(prompts, withTools)
          }).pipe(Effect.provide(scriptedSession(turns(withTools), withTools ? {} : { withDefaultTools: false }))))
      }
    })
  }

  const chatMl = models.at(-1) ?? chatMlModel()
  layer(EngineLive.layer(engineConfig(chatMl)), { timeout: 120_000 })("the ChatML template", (it) => {
    it.effect("is rendered by node-llama-cpp's Jinja wrapper, with the tools' JSON schemas inside the system message", () =>
      Effect.gen(function*() {
        yield* converse
        const { prompts, wrapper } = yield* renderedTurns
        expect(wrapper).toBe("JinjaTemplate")
        const first = prompts[0] ?? ""
        const system = first.slice(0, first.indexOf("<|im_end|>"))
        expect(system).toContain("# AUTHORITATIVE DATE/TIME")
        expect(system).toContain("<tools>")
        expect(system).toContain(`"name": "datetime"`)
      }).pipe(Effect.provide(scriptedSession(turns(true)))))
  })
})
