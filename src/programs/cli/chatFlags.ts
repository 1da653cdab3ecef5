/**
 * The chat's flags, apart from the chat itself so that parsing a command
 * line (or printing `--help`) loads no model or server code.
 *
 * @module
 */
import { Options } from "@effect/cli"
import { PresetName } from "../../domain/Sampling.js"
import { mcpOption } from "./mcpServers.js"
import { settingsFileOption } from "./optionalField.js"
import { remoteFlags } from "./remoteFlags.js"
import { sessionFileName } from "./sessionFileName.js"
import * as ToolFlags from "./toolFlags.js"

const optionalNumber = (name: string, description: string) =>
  Options.float(name).pipe(Options.optional, Options.withDescription(description))
const optionalInteger = (name: string, description: string) =>
  Options.integer(name).pipe(Options.optional, Options.withDescription(description))

/** The chat's flags. */
export const chatFlags = {
  model: Options.text("model").pipe(
    Options.withAlias("m"),
    Options.optional,
    Options.withDescription("A local GGUF model: a file, or a URI downloaded once (hf:<user>/<repo>/<file>.gguf).")
  ),
  ...remoteFlags,
  remoteAgent: Options.boolean("remote-agent").pipe(
    Options.withDescription(
      "With --url (an easyai server): run the server's own agent — its tools, sandbox and system prompt — in a session on the server; its tool calls are shown and asked here, Ctrl+C stops them there."
    )
  ),
  prompt: Options.text("prompt").pipe(
    Options.withAlias("p"),
    Options.optional,
    Options.withDescription("Answer this once and exit: the answer on stdout, everything else on stderr.")
  ),
  shell: Options.boolean("shell").pipe(
    Options.withDescription("The hybrid shell: lines run in $SHELL, \"> text\" asks the model; the model gets bash (in --sandbox, default the current directory).")
  ),
  system: Options.text("system").pipe(
    Options.withAlias("s"),
    Options.optional,
    Options.withDescription("Replace the built-in base prompt with this text.")
  ),
  systemFile: Options.fileText("system-file").pipe(Options.optional, Options.withDescription("Read the base prompt from a file.")),
  noBuiltinSystem: Options.boolean("no-builtin-system").pipe(Options.withDescription("Drop the built-in base prompt.")),
  showSystemPrompt: Options.boolean("show-system-prompt").pipe(
    Options.withDescription("Print the system prompt a session would start with, then exit.")
  ),
  preset: Options.choice("preset", PresetName.literals).pipe(
    Options.optional,
    Options.withDescription("The sampling preset (default precise).")
  ),
  temperature: optionalNumber("temperature", "Sampling temperature, 0–5 (overrides the preset)."),
  topP: optionalNumber("top-p", "Nucleus sampling cut, 0–1."),
  topK: optionalInteger("top-k", "Keep the k most likely tokens (0: off)."),
  minP: optionalNumber("min-p", "Drop tokens below this share of the most likely one, 0–1."),
  repeatPenalty: optionalNumber("repeat-penalty", "Penalty on repeated tokens (1: off; default 1.04)."),
  frequencyPenalty: optionalNumber("frequency-penalty", "Penalty growing with a token's frequency, -2–2 (default 0.05)."),
  presencePenalty: optionalNumber("presence-penalty", "Penalty on any token already present, -2–2 (default 0.1)."),
  maxTokens: optionalInteger("max-tokens", "The most tokens one model turn may generate."),
  ctx: optionalInteger("ctx", "Context size in tokens for a local model (default: the model's training context, or as much of it as memory holds).").pipe(Options.withAlias("c")),
  threads: optionalInteger("threads", "CPU threads for a local model (default: the number of cores).").pipe(Options.withAlias("t")),
  sandbox: ToolFlags.sandbox,
  allowBash: ToolFlags.allowBash,
  noPython: ToolFlags.noPython,
  externalTools: ToolFlags.externalTools,
  webAllow: ToolFlags.webAllow,
  isolate: ToolFlags.isolate,
  toolEnv: ToolFlags.toolEnv,
  memory: Options.directory("memory").pipe(Options.optional, Options.withDescription("Long-term memory in this directory (the knowledge tools).")),
  skills: Options.directory("skills", { exists: "yes" }).pipe(Options.optional, Options.withDescription("Skills in this directory.")),
  toolsMode: Options.choice("tools-mode", ["split", "unified", "both"]).pipe(
    Options.optional,
    Options.withDescription("The fs tool surface: split (default), unified or both.")
  ),
  noPlan: Options.boolean("no-plan").pipe(Options.withDescription("Leave out the plan tool.")),
  noTools: ToolFlags.noTools,
  tools: ToolFlags.tools,
  mcp: mcpOption,
  autoApprove: Options.text("auto-approve").pipe(
    Options.optional,
    Options.withDescription("Tool calls that run without asking: comma-separated names or patterns, e.g. docs.*,bash.")
  ),
  yes: Options.boolean("yes").pipe(Options.withAlias("y"), Options.withDescription("Approve every tool call without asking.")),
  noPromptProgress: Options.boolean("no-prompt-progress").pipe(
    Options.withDescription("A plain \"thinking\" spinner: no prompt-evaluation percentage (a server is asked not to stream it).")
  ),
  noAutoCompress: Options.boolean("no-auto-compress").pipe(
    Options.withDescription("Do not compress the conversation by itself when a turn filled 85% of the context (/compress still does).")
  ),
  noReasoning: Options.boolean("no-reasoning").pipe(Options.withDescription("Hide the model's reasoning, <think> blocks included.")),
  continue: Options.boolean("continue").pipe(
    Options.withDescription(`Continue the conversation saved in ./${sessionFileName}.`)
  ),
  noLocalSession: Options.boolean("no-local-session").pipe(
    Options.withDescription(`Do not save the conversation to ./${sessionFileName} after each turn.`)
  ),
  verbose: Options.boolean("verbose").pipe(
    Options.withAlias("v"),
    Options.withDescription("Debug log lines on stderr (each model turn's token accounting), and a failure's full cause.")
  ),
  logFile: Options.text("log-file").pipe(
    Options.optional,
    Options.withDescription("Append every log line, debug lines included, to this file.")
  ),
  config: settingsFileOption("[cli], [ENGINE], [MODEL_<pattern>]")
}

