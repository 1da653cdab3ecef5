/**
 * A served turn as one `chat.completion` object, for `stream: false`.
 * With server-side tools the message is the final answer (tool activity is
 * in the loop, not in the content); with the client's tools it carries the
 * calls for the client to run.
 *
 * @module
 */
import type { Completion } from "../../domain/openai/ChatCompletions.js"
import type { ToolCall } from "../../domain/ToolCall.js"
import { objectHeader, type ResponseIdentity, type TurnEvent, TurnTally } from "./turnEvents.js"

/** Folds a turn's events into a completion; owned by one response. */
export class CompletionBuilder {
  readonly tally = new TurnTally()
  private text = ""
  private reasoning = ""
  private readonly calls: Array<ToolCall> = []

  /** Folds one event in. */
  add(event: TurnEvent): void {
    this.tally.add(event)
    switch (event._tag) {
      case "TextDelta":
        this.text += event.text
        break
      case "ReasoningDelta":
        this.reasoning += event.text
        break
      case "ToolCallRequested":
        this.calls.push(event.call)
        break
      case "TurnComplete":
        // The loop's own account of the answer, without discarded or intermediate hops.
        this.text = event.text
        this.reasoning = event.reasoning ?? ""
        break
      default:
        break
    }
  }

  /** The answer so far: its text, its reasoning, and the calls handed back to the client. */
  answer(): { readonly text: string; readonly reasoning: string; readonly calls: ReadonlyArray<ToolCall> } {
    return { text: this.text, reasoning: this.reasoning, calls: this.calls }
  }

  /** The completion object. */
  build(identity: ResponseIdentity): Completion {
    const message: NonNullable<Completion["choices"][number]["message"]> = {
      role: "assistant",
      content: this.calls.length > 0 && this.text === "" ? null : this.text,
      ...(this.reasoning === "" ? {} : { reasoning_content: this.reasoning }),
      ...(this.calls.length === 0 ? {} : {
        tool_calls: this.calls.map((call) => ({
          id: call.id,
          type: "function",
          function: { name: call.name, arguments: call.arguments }
        }))
      })
    }
    return {
      ...objectHeader(identity, "chat.completion"),
      choices: [{ index: 0, message, finish_reason: this.tally.finishReason ?? "stop" }],
      usage: this.tally.usage(),
      ...(this.tally.sawUsage ? { timings: this.tally.timings() } : {})
    }
  }
}
