/**
 * The web UI in a real headless Chromium against `easyai serve`'s app on a
 * loopback socket: on scripted turns (what the page shows for each kind of
 * event), and on the real engine with the generated GGUF.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Redacted, Schedule } from "effect"
import { LocalChatModel, Usage } from "easyai"
import { presets } from "../../src/domain/Sampling.js"
import { ScriptedChatModel } from "easyai/testing"
import type { Page } from "playwright-core"
import { browser, newPage, screenshot, step, viewports } from "../support/browser.js"
import { engineConfig, testModels } from "../support/models.js"
import { baseUrl, scriptedRequests, scriptedServer, served, withoutClock } from "../support/server.js"
import { echo } from "../support/tools.js"

/** A server on scripted turns whose own toolbelt is `echo`, with `options` on top. */
const scripted = (turns: ReadonlyArray<ScriptedChatModel.Turn>, server: Parameters<typeof scriptedServer>[1] = {}) =>
  scriptedServer(turns, { session: { withDefaultTools: false, tools: [echo] }, ...server })

const byTestId = (page: Page, id: string) => page.locator(`[data-testid="${id}"]`)

/** Opens the page of the server under test in a fresh browser page. */
const openPage = (viewport: { readonly width: number; readonly height: number } = viewports.desktop) =>
  Effect.gen(function*() {
    const url = yield* baseUrl
    const page = yield* newPage(yield* browser, viewport)
    yield* step(() => page.goto(`${url}/`))
    return page
  })

/** Types `text` in the composer and presses Enter. */
const send = (page: Page, text: string) =>
  step(async () => {
    await byTestId(page, "composer").fill(text)
    await byTestId(page, "composer").press("Enter")
  })

const assistantMessages = (page: Page) => page.locator(`[data-testid="message"][data-role="assistant"]`)

/** The last assistant message once it reached `state`. */
const lastAnswer = (page: Page, state: string) =>
  step(async () => {
    const last = assistantMessages(page).last()
    await last.and(page.locator(`[data-state="${state}"]`)).waitFor({ timeout: 20_000 })
    return last
  })

/** The server's slots in use, from `GET /health`. */
const activeSlots = Effect.flatMap(baseUrl, (url) =>
  step(async () => {
    const health = (await (await fetch(`${url}/health`)).json()) as { readonly slots: { readonly active: number } }
    return health.slots.active
  }))

describe("the web UI on scripted turns", () => {
  it.scopedLive("streams an answer rendered as Markdown with highlighted code, and says how it went", () =>
    Effect.gen(function*() {
      const page = yield* openPage()
      yield* step(() => byTestId(page, "composer").waitFor())
      yield* send(page, "show me code")
      const answer = yield* lastAnswer(page, "done")
      const html = yield* step(() => answer.locator(`[data-testid="answer"]`).innerHTML())
      expect(html).toContain("<strong>Here</strong>")
      // Highlighted: highlight.js marks the keyword.
      expect(html).toMatch(/<code[^>]*language-ts[^>]*>[\s\S]*hljs-keyword[\s\S]*const/)
      expect(yield* step(() => answer.locator(`[data-testid="status"]`).innerText())).toMatch(/done/)
      const [request] = yield* scriptedRequests
      expect(request?.messages.at(-1)?._tag).toBe("UserMessage")
      // The server stamps the time on the page's newest message, for the model only.
      expect(request?.messages.at(-1)?.content).toMatch(/^show me code\n\nSent: \d{4}-\d{2}-\d{2} [^\n]+$/)
      // The user's message is shown as sent.
      expect(yield* step(() => page.locator(`[data-testid="message"][data-role="user"]`).innerText())).toContain("show me code")
      yield* screenshot(page, "webui-desktop")
    }).pipe(Effect.provide(scripted([
      ScriptedChatModel.reply("**Here** it is:\n\n```ts\nconst answer = 42\n```\n")
    ]))), { timeout: 60_000 })

  it.scopedLive("shows reasoning in a panel that closes once the answer starts", () =>
    Effect.gen(function*() {
      const page = yield* openPage()
      yield* send(page, "think first")
      const answer = yield* lastAnswer(page, "done")
      const reasoning = answer.locator(`[data-testid="reasoning"]`)
      // Collapsed: its text is in the page, not on screen.
      expect(yield* step(() => reasoning.textContent())).toContain("Let me weigh this carefully.")
      expect(yield* step(() => reasoning.evaluate((details) => details.hasAttribute("open")))).toBe(false)
      expect(yield* step(() => answer.locator(`[data-testid="answer"]`).innerText())).toContain("Forty-two.")
    }).pipe(Effect.provide(scripted([
      [...ScriptedChatModel.reasoning("Let me weigh ", "this carefully."), ...ScriptedChatModel.text("Forty-two.")]
    ]))), { timeout: 60_000 })

  it.scopedLive("shows a server-side tool call live, then its result", () =>
    Effect.gen(function*() {
      const page = yield* openPage()
      yield* send(page, "echo ping")
      const answer = yield* lastAnswer(page, "done")
      const tool = answer.locator(`[data-testid="tool"][data-tool="echo"]`)
      expect(yield* step(() => tool.getAttribute("data-state"))).toBe("done")
      expect(yield* step(() => answer.locator(`[data-testid="answer"]`).innerText())).toContain("The echo said ping.")
      // The page asked for no indicator lines in the text: the tool row shows the call instead.
      expect(yield* step(() => answer.locator(`[data-testid="answer"]`).innerText())).not.toContain("✓")
    }).pipe(Effect.provide(scripted([
      ScriptedChatModel.toolCall("echo", { text: "ping" }),
      ScriptedChatModel.reply("The echo said ping.")
    ]))), { timeout: 60_000 })

  it.scopedLive("stops a generation with Esc: the server's generation ends and its slot frees", () =>
    Effect.gen(function*() {
      const page = yield* openPage()
      yield* send(page, "tell me a long story")
      yield* step(() => page.getByText("Once upon a time").waitFor())
      expect(yield* activeSlots).toBe(1)
      yield* step(() => byTestId(page, "stop").waitFor())
      yield* step(() => page.keyboard.press("Escape"))
      const answer = yield* lastAnswer(page, "stopped")
      expect(yield* step(() => answer.locator(`[data-testid="answer"]`).innerText())).toContain("Once upon a time")
      // The disconnect reached the server: the generation was interrupted and its slot is free again.
      yield* activeSlots.pipe(
        Effect.repeat({ until: (active) => active === 0, schedule: Schedule.spaced(Duration.millis(50)) }),
        Effect.timeout("10 seconds")
      )
      // And the page is ready for the next message.
      yield* step(() => byTestId(page, "send").waitFor())
    }).pipe(Effect.provide(scripted([
      [...ScriptedChatModel.text("Once upon a time"), ScriptedChatModel.delay("10 minutes")]
    ]))), { timeout: 60_000 })

  it.scopedLive("keeps conversations across a reload, and starts new ones", () =>
    Effect.gen(function*() {
      const page = yield* openPage()
      yield* send(page, "remember me")
      yield* lastAnswer(page, "done")
      yield* step(() => page.reload())
      yield* step(() => page.getByText("Remembered.").waitFor())
      expect(yield* step(() => byTestId(page, "conversation").count())).toBe(1)
      yield* step(() => byTestId(page, "new-chat").click())
      yield* send(page, "second")
      yield* lastAnswer(page, "done")
      expect(yield* step(() => byTestId(page, "conversation").count())).toBe(2)
      yield* step(() => page.reload())
      expect(yield* step(() => byTestId(page, "conversation").count())).toBe(2)
    }).pipe(Effect.provide(scripted([ScriptedChatModel.reply("Remembered."), ScriptedChatModel.reply("Again.")]))), {
      timeout: 60_000
    })

  it.scopedLive("Shift+Enter adds a line, Enter sends both lines", () =>
    Effect.gen(function*() {
      const page = yield* openPage()
      const composer = byTestId(page, "composer")
      yield* step(async () => {
        await composer.click()
        await page.keyboard.type("first line")
        await page.keyboard.press("Shift+Enter")
        await page.keyboard.type("second line")
      })
      expect(yield* step(() => composer.inputValue())).toBe("first line\nsecond line")
      expect(yield* scriptedRequests).toHaveLength(0)
      yield* step(() => page.keyboard.press("Enter"))
      yield* lastAnswer(page, "done")
      expect(withoutClock((yield* scriptedRequests)[0]?.messages.at(-1)?.content ?? "")).toBe("first line\nsecond line")
      expect(yield* step(() => composer.inputValue())).toBe("")
    }).pipe(Effect.provide(scripted([ScriptedChatModel.reply("Two lines.")]))), { timeout: 60_000 })

  it.scopedLive("sends the chosen preset, which the server applies", () =>
    Effect.gen(function*() {
      const page = yield* openPage()
      yield* step(() => byTestId(page, "preset").selectOption("creative"))
      yield* send(page, "write a poem")
      yield* lastAnswer(page, "done")
      const [request] = yield* scriptedRequests
      // The server peeled the preset off the message and sampled with it.
      expect(request?.messages.at(-1)?._tag).toBe("UserMessage")
      expect(withoutClock(request?.messages.at(-1)?.content ?? "")).toBe("write a poem")
      expect(request?.sampling?.temperature).toBe(presets.creative.temperature)
      // The choice is remembered.
      yield* step(() => page.reload())
      expect(yield* step(() => byTestId(page, "preset").inputValue())).toBe("creative")
    }).pipe(Effect.provide(scripted([ScriptedChatModel.reply("Roses.")]))), { timeout: 60_000 })

  it.scopedLive("shows the context fill and speed the server reported", () =>
    Effect.gen(function*() {
      const page = yield* openPage()
      yield* send(page, "how full?")
      yield* lastAnswer(page, "done")
      expect(yield* step(() => byTestId(page, "context-bar").innerText())).toMatch(/30\s?%/)
      expect(yield* step(() => byTestId(page, "speed").innerText())).toContain("22.3")
    }).pipe(Effect.provide(scripted([[
      ...ScriptedChatModel.reply("Quite."),
      new Usage({ promptTokens: 1200, completionTokens: 29, contextUsed: 1229, contextSize: 4096, tokensPerSecond: 22.3 })
    ]]))), { timeout: 60_000 })

  it.scopedLive("asks for the API key the server requires, and then works with it", () =>
    Effect.gen(function*() {
      const page = yield* openPage()
      const dialog = byTestId(page, "api-key-dialog")
      yield* step(() => dialog.waitFor())
      yield* step(async () => {
        await byTestId(page, "api-key-input").fill("sesame")
        await byTestId(page, "api-key-submit").click()
        await dialog.waitFor({ state: "hidden" })
      })
      yield* send(page, "let me in")
      const answer = yield* lastAnswer(page, "done")
      expect(yield* step(() => answer.innerText())).toContain("Welcome.")
      expect(yield* scriptedRequests).toHaveLength(1)
    }).pipe(Effect.provide(scripted([ScriptedChatModel.reply("Welcome.")], { server: { apiKey: Redacted.make("sesame") } }))), {
      timeout: 60_000
    })

  it.scopedLive("takes its title and placeholder from the server, and fits a phone", () =>
    Effect.gen(function*() {
      const page = yield* openPage(viewports.phone)
      expect(yield* step(() => page.title())).toContain("Box <AI>")
      expect(yield* step(() => byTestId(page, "title").first().innerText())).toContain("Box <AI>")
      expect(yield* step(() => byTestId(page, "composer").getAttribute("placeholder"))).toBe("Ask the box…")
      // Nothing sticks out sideways on a phone.
      expect(yield* step(() => page.locator("html").evaluate((root) => root.scrollWidth))).toBeLessThanOrEqual(viewports.phone.width)
      yield* send(page, "hi")
      yield* lastAnswer(page, "done")
      yield* screenshot(page, "webui-phone")
    }).pipe(Effect.provide(scripted([ScriptedChatModel.reply("Hello from the box.")], {
      server: { webui: { title: "Box <AI>", placeholder: "Ask the box…" } }
    }))), { timeout: 60_000 })
})

describe("the web UI on the real engine", () => {
  // The generated model: the page's path through the engine, not the models' quality, is under test.
  for (const model of testModels.slice(0, 1)) {
    it.scopedLive(`answers with ${model.name}`, () =>
      Effect.gen(function*() {
        const page = yield* openPage()
        yield* send(page, "Once upon a time")
        const answer = yield* lastAnswer(page, "done")
        expect((yield* step(() => answer.locator(`[data-testid="answer"]`).innerText())).trim().length).toBeGreaterThan(0)
        expect(yield* step(() => byTestId(page, "context-bar").innerText())).toMatch(/\d/)
      }).pipe(Effect.provide(served({
        model: LocalChatModel.layerFrom(engineConfig(model)),
        session: { withDefaultTools: false },
        server: { system: "You tell short stories.", injectPreamble: false }
      }))), { timeout: 120_000 })
  }
})
