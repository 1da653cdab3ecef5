/**
 * Every command of `easyai`, its flags derived from the settings it takes:
 * a command's body is imported only when it runs, so `easyai --help` (or a
 * typo) loads no model, server or MCP code. Each command comes with the
 * table of the flags it takes, read from the very config it is made from,
 * for the check of the command line (`commandLine.ts`).
 *
 * @module
 */
import { Args, Command, Options } from "@effect/cli"
import { Effect, type Types } from "effect"
import { PresetName } from "../../domain/Sampling.js"
import { flagTable, type FlagTable, onceTable, type OnceTable } from "./commandLine.js"
import { optionsFor } from "./settings/options.js"
import type { Program as SettingsProgram } from "./settings/Setting.js"

/** Runs `run` from the module `load` imports, when the command runs. */
const lazily = <M, A, E, R>(load: () => Promise<M>, run: (module: M) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.promise(load), run)

/** A command with its name, the settings it reads, its one-line description and the flags it takes. */
export interface Program<Name extends string, R, E, A> {
  readonly name: Name
  readonly settings: SettingsProgram
  readonly description: string
  readonly flags: FlagTable
  readonly once: OnceTable
  readonly command: Command.Command<Name, R, E, A>
}

/** Makes a command and, from the same config, the table of its flags. */
export const program = <Name extends string, const Config extends Command.Command.Config, R, E>(
  name: Name,
  settings: SettingsProgram,
  config: Config,
  description: string,
  handler: (flags: Types.Simplify<Command.Command.ParseConfig<Config>>) => Effect.Effect<void, E, R>
): Program<Name, R, E, Types.Simplify<Command.Command.ParseConfig<Config>>> => ({
  name,
  settings,
  description,
  flags: flagTable(config),
  once: onceTable(config),
  command: Command.make(name, config, handler).pipe(Command.withDescription(description))
})

const chat = () => import("./chat.js")
const manage = () => import("./manage.js")

const chatDescription = "Chat with an agent on a local GGUF model (--model) or a server (--url); -p answers once."

/** The root, `easyai` alone: the chat, with the other programs as subcommands. */
export const root = program(
  "easyai",
  "chat",
  { flags: optionsFor("chat") },
  "An agent in the terminal, and the programs around it: an OpenAI-compatible server, an MCP server.",
  ({ flags }) => lazily(chat, (m) => m.chat(flags))
)

/** The subcommands: `chat`, `serve`, `mcp` and the management commands (`config` is `configCommand.ts`). */
export const subcommands = [
  program("chat", "chat", { flags: optionsFor("chat") }, chatDescription, ({ flags }) => lazily(chat, (m) => m.chat(flags))),
  program(
    "serve",
    "serve",
    { flags: optionsFor("serve") },
    "Serve a GGUF model over an OpenAI-compatible HTTP API (/v1/chat/completions).",
    ({ flags }) => lazily(() => import("./serve.js"), (m) => m.serve(flags))
  ),
  program(
    "mcp",
    "mcp",
    { flags: optionsFor("mcp") },
    "Serve easyai's tools over MCP (Streamable HTTP at /mcp, or --stdio) without loading a model.",
    ({ flags }) => lazily(() => import("./mcp.js"), (m) => m.mcp(flags))
  ),
  program(
    "models",
    "remote",
    { flags: optionsFor("remote") },
    "List the models of the server at --url (GET /v1/models).",
    ({ flags }) => lazily(manage, (m) => m.models(flags))
  ),
  program(
    "tools",
    "tools",
    { flags: optionsFor("tools") },
    "List the tools an agent gets with these flags (exit 1 on a broken manifest), or with --remote those of --url.",
    ({ flags }) => lazily(manage, (m) => m.tools(flags))
  ),
  program(
    "health",
    "remote",
    { flags: optionsFor("remote") },
    "Show the health of the server at --url (GET /health).",
    ({ flags }) => lazily(manage, (m) => m.health(flags))
  ),
  program(
    "props",
    "remote",
    { flags: optionsFor("remote") },
    "Show the configuration of the server at --url (GET /props).",
    ({ flags }) => lazily(manage, (m) => m.props(flags))
  ),
  program(
    "metrics",
    "remote",
    { flags: optionsFor("remote") },
    "Show the Prometheus metrics of the server at --url (GET /metrics).",
    ({ flags }) => lazily(manage, (m) => m.metrics(flags))
  ),
  program(
    "preset",
    "remote",
    { flags: optionsFor("remote"), name: Args.choice(PresetName.literals.map((name) => [name, name] as const), { name: "NAME" }) },
    "Switch the default sampling preset of the server at --url (POST /v1/preset).",
    ({ flags, name }) => lazily(manage, (m) => m.preset(flags, name))
  )
] as const

/** `easyai config [COMMAND]`: the settings of that command's command line, for `configCommand.ts`. */
export const configProgram = (settings: SettingsProgram) =>
  program(
    "config",
    settings,
    {
      flags: optionsFor(settings),
      json: Options.boolean("json").pipe(Options.withDescription("Print JSON instead of a table.")),
      check: Options.boolean("check").pipe(Options.withDescription("Check the settings file, the external tool manifests and the skills."))
    },
    "Print the effective settings of a command line and where each value came from; --check checks them.",
    ({ check, flags, json }) => lazily(() => import("./configCommand.js"), (m) => m.config(settings, flags, { json, check }))
  )

/** The `replay` command's one-line description. */
export const replayDescription = "Print the model turns a --trace-file recorded as a ScriptedChatModel script (JSON), with --to-script."

/** What `easyai replay --help` lists. */
export const replayFlags = [
  { name: "FILE.jsonl", description: "A trace written with --trace-file." },
  { name: "--to-script", description: "Print the recorded model turns as a ScriptedChatModel script (JSON)." }
] as const

/** `easyai replay FILE.jsonl --to-script`: it reads no settings, so it stands beside the subcommands, as `config` does. */
export const replayCommand = Command.make(
  "replay",
  {
    file: Args.text({ name: "FILE.jsonl" }).pipe(Args.withDescription(replayFlags[0].description)),
    toScript: Options.boolean("to-script").pipe(Options.withDescription(replayFlags[1].description))
  },
  ({ file, toScript }) => lazily(() => import("./replay.js"), (m) => m.replay(file, toScript))
).pipe(Command.withDescription(replayDescription))
