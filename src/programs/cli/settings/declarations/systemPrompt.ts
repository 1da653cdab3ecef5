/**
 * The system prompt: its base, what is appended and the dynamic preamble.
 *
 * @module
 */
import * as C from "../codec.js"
import { declare } from "../Setting.js"
import { local } from "./common.js"

/** The system prompt settings, by id, in the order `--help` and the docs list them. */
export const systemPromptSettings = {
  system: declare("system", {
    codec: C.text,
    doc: "Replace the built-in base prompt with this text.",
    topic: "prompt",
    programs: local,
    aliases: ["-s"]
  }),
  systemFile: declare("systemFile", {
    codec: C.file,
    doc: "Read the base prompt from a file.",
    topic: "prompt",
    programs: local,
    aliases: ["--system-prompt-file"]
  }),
  builtinSystem: declare("builtinSystem", {
    codec: C.boolean,
    doc: "Drop the built-in base prompt.",
    default: true,
    topic: "prompt",
    programs: ["chat"],
    flag: false,
    negation: "no-builtin-system"
  }),
  inject: declare("inject", {
    codec: C.boolean,
    doc: "Add the date/time and memory preamble to system prompts and clock notes to user messages (--no-inject: off).",
    default: true,
    topic: "prompt",
    programs: ["serve"],
    aliases: ["--inject-datetime"],
    flagTakesValue: true,
    negation: "no-inject"
  }),
  knowledgeCutoff: declare("knowledgeCutoff", {
    codec: C.month,
    doc: "The knowledge cutoff the preamble announces.",
    default: "2024-10",
    topic: "prompt",
    programs: local
  }),
  citeSources: declare("citeSources", {
    codec: C.boolean,
    doc: "Ask the model to cite its sources.",
    default: false,
    topic: "prompt",
    programs: local
  })
}
