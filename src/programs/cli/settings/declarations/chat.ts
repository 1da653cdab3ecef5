/**
 * The chat program: one-shot prompts, the shell, the session file and the REPL's display.
 *
 * @module
 */
import * as C from "../codec.js"
import { declare } from "../Setting.js"
import { sessionFileName } from "../../../../layers/session/sessionFileName.js"

/** The chat settings, by id, in the order `--help` and the docs list them. */
export const chatSettings = {
  prompt: declare("prompt", {
    codec: C.text,
    doc: "Answer this once and exit: the answer on stdout, everything else on stderr.",
    topic: "chat",
    programs: ["chat"],
    aliases: ["-p"],
    ini: false
  }),
  shell: declare("shell", {
    codec: C.boolean,
    doc: "The hybrid shell: lines run in $SHELL, \"> text\" asks the model, which gets bash.",
    default: false,
    topic: "chat",
    programs: ["chat"]
  }),
  showSystemPrompt: declare("showSystemPrompt", {
    codec: C.boolean,
    doc: "Print the system prompt a session would start with, then exit.",
    default: false,
    topic: "chat",
    programs: ["chat"],
    ini: false
  }),
  continue: declare("continue", {
    codec: C.boolean,
    doc: `Continue the conversation saved in ./${sessionFileName}.`,
    default: false,
    topic: "chat",
    programs: ["chat"],
    ini: false
  }),
  localSession: declare("localSession", {
    codec: C.boolean,
    doc: `Do not save the conversation to ./${sessionFileName} after each turn.`,
    default: true,
    topic: "chat",
    programs: ["chat"],
    flag: false,
    negation: "no-local-session"
  }),
  reasoning: declare("reasoning", {
    codec: C.boolean,
    doc: "Hide the model's reasoning, <think> blocks included.",
    default: true,
    topic: "chat",
    programs: ["chat"],
    flag: false,
    negation: "no-reasoning"
  }),
  promptProgress: declare("promptProgress", {
    codec: C.boolean,
    doc: "A plain spinner: no prompt-evaluation progress (a server is asked not to stream it).",
    default: true,
    topic: "chat",
    programs: ["chat"],
    flag: false,
    negation: "no-prompt-progress"
  }),
  autoCompress: declare("autoCompress", {
    codec: C.boolean,
    doc: "Do not compress the conversation by itself when a turn filled 85% of the context.",
    default: true,
    topic: "chat",
    programs: ["chat"],
    flag: false,
    negation: "no-auto-compress"
  })
}
