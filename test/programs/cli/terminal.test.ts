/**
 * The terminal's one-line texts: the summary after a turn, the spinner's
 * label while a prompt is read, the debug line of a model turn's usage, and
 * the approval question with its answer.
 */
import { describe, expect, it } from "@effect/vitest"
import { PromptProgress, Usage } from "../../../src/domain/AgentEvent.js"
import { ToolCall } from "../../../src/domain/ToolCall.js"
import { approvalQuestion, approved, progressLabel, summaryLine, usageLogLine } from "../../../src/programs/cli/terminal.js"

const progress = (processed: number, total: number) => new PromptProgress({ processed, total })

const request = (name: string, args: string, displayName = name) => ({
  call: new ToolCall({ id: "call_1", name, arguments: args }),
  displayName
})

describe("summaryLine", () => {
  it("shows the context fill, the tokens and the speed", () => {
    const usage = new Usage({ promptTokens: 300, completionTokens: 40, contextUsed: 340, contextSize: 3400, tokensPerSecond: 45.234 })
    expect(summaryLine(usage)).toBe("ctx 10% · 340 tok · 45.2 tk/s")
  })

  it("leaves out what the backend did not report", () => {
    expect(summaryLine(new Usage({ promptTokens: 12, completionTokens: 3 }))).toBe("15 tok")
    expect(summaryLine(new Usage({ promptTokens: 12, completionTokens: 3, contextUsed: 15 }))).toBe("15 tok")
    expect(summaryLine(new Usage({ promptTokens: 12, completionTokens: 3, contextSize: 4096 }))).toBe("15 tok")
    expect(summaryLine(new Usage({ promptTokens: 0, completionTokens: 0, tokensPerSecond: 7 }))).toBe("0 tok · 7.0 tk/s")
  })

  it("shows no fill for a context of size 0, and never more than 100%", () => {
    expect(summaryLine(new Usage({ promptTokens: 1, completionTokens: 1, contextUsed: 2, contextSize: 0 }))).toBe("2 tok")
    expect(summaryLine(new Usage({ promptTokens: 5000, completionTokens: 100, contextUsed: 5100, contextSize: 4096 })))
      .toBe("ctx 100% · 5100 tok")
  })
})

describe("progressLabel", () => {
  it("is the share of the prompt read so far, without a context size", () => {
    expect(progressLabel(progress(45, 100), undefined)).toBe("thinking 45%")
    expect(progressLabel(progress(0, 812), undefined)).toBe("thinking 0%")
    expect(progressLabel(progress(812, 812), undefined)).toBe("thinking 100%")
    expect(progressLabel(progress(1, 3), undefined)).toBe("thinking 33%")
  })

  it("adds the context fill when the context size is known", () => {
    expect(progressLabel(progress(500, 1000), 5000)).toBe("thinking 50% · ctx 10%")
    expect(progressLabel(progress(490, 1000), 4096)).toBe("thinking 49% · ctx 12%")
  })

  it("is plain thinking when the prompt's size is 0", () => {
    expect(progressLabel(progress(0, 0), undefined)).toBe("thinking")
    expect(progressLabel(progress(10, 0), 1000)).toBe("thinking · ctx 1%")
  })

  it("shows no fill for a context of size 0", () => {
    expect(progressLabel(progress(50, 100), 0)).toBe("thinking 50%")
  })

  it("never goes past 100%", () => {
    expect(progressLabel(progress(150, 100), undefined)).toBe("thinking 100%")
    expect(progressLabel(progress(9000, 9000), 4096)).toBe("thinking 100% · ctx 100%")
  })
})

describe("usageLogLine", () => {
  it("names everything the backend reported", () => {
    const usage = new Usage({
      promptTokens: 812,
      cachedTokens: 640,
      completionTokens: 42,
      contextUsed: 860,
      contextSize: 4096,
      tokensPerSecond: 38.46
    })
    expect(usageLogLine(usage)).toBe("[prompt_eval] 812 tok (640 cached) · 42 generated · ctx 21% (860/4096) · 38.5 tk/s")
  })

  it("keeps to the token counts when that is all there is", () => {
    expect(usageLogLine(new Usage({ promptTokens: 812, completionTokens: 42 }))).toBe("[prompt_eval] 812 tok · 42 generated")
    expect(usageLogLine(new Usage({ promptTokens: 812, cachedTokens: 640, completionTokens: 42, promptTokensPerSecond: 950 })))
      .toBe("[prompt_eval] 812 tok (640 cached) · 950.0 tk/s eval · 42 generated")
    expect(usageLogLine(new Usage({ promptTokens: 0, cachedTokens: 0, completionTokens: 0 })))
      .toBe("[prompt_eval] 0 tok (0 cached) · 0 generated")
  })

  it("leaves the context out without a size, and clamps its share at 100%", () => {
    expect(usageLogLine(new Usage({ promptTokens: 10, completionTokens: 2, contextUsed: 12 }))).toBe("[prompt_eval] 10 tok · 2 generated")
    expect(usageLogLine(new Usage({ promptTokens: 10, completionTokens: 2, contextUsed: 12, contextSize: 0 })))
      .toBe("[prompt_eval] 10 tok · 2 generated")
    expect(usageLogLine(new Usage({ promptTokens: 5000, completionTokens: 2, contextUsed: 5002, contextSize: 4096 })))
      .toBe("[prompt_eval] 5000 tok · 2 generated · ctx 100% (5002/4096)")
  })
})

describe("approvalQuestion", () => {
  it("names the tool as people know it, with its arguments", () => {
    expect(approvalQuestion(request("docs__search", "{\"query\":\"x\"}", "docs.search"))).toBe("call 'docs.search({\"query\":\"x\"})'? [y/N] ")
    expect(approvalQuestion(request("bash", "{}"))).toBe("call 'bash({})'? [y/N] ")
  })

  it("keeps arguments of up to 80 characters whole", () => {
    const args = JSON.stringify({ text: "a".repeat(80 - "{\"text\":\"\"}".length) })
    expect(args).toHaveLength(80)
    expect(approvalQuestion(request("echo", args))).toBe(`call 'echo(${args})'? [y/N] `)
  })

  it("cuts longer arguments to 77 characters and an ellipsis", () => {
    const args = JSON.stringify({ text: "b".repeat(500) })
    const question = approvalQuestion(request("tools__echo", args, "tools.echo"))
    expect(question).toBe(`call 'tools.echo(${args.slice(0, 77)}…)'? [y/N] `)
    expect(question).not.toContain("b".repeat(100))
    const justOver = "c".repeat(81)
    expect(approvalQuestion(request("echo", justOver))).toBe(`call 'echo(${"c".repeat(77)}…)'? [y/N] `)
  })
})

describe("approved", () => {
  it("is yes only for y or yes, in any case, blanks around allowed", () => {
    for (const answer of ["y", "Y", "yes", "YES", "Yes", " y ", "\tyes\n"]) expect(approved(answer), answer).toBe(true)
  })

  it("is no for anything else, the empty answer included", () => {
    for (const answer of ["", " ", "n", "no", "N", "yeah", "ye", "yes please", "y y", "ok", "1", "true"]) {
      expect(approved(answer), JSON.stringify(answer)).toBe(false)
    }
  })
})
