/**
 * Every command of `easyai`, defined from its flags alone: a command's body
 * is imported only when it runs, so `easyai --help` (or a typo) loads no
 * model, server or MCP code. Each command comes with the table of the flags
 * it takes, read from the very config it is made from, for the check of the
 * command line (`commandLine.ts`).
 *
 * @module
 */
import { Args, Command, Options } from "@effect/cli"
import { Effect, type Types } from "effect"
import { PresetName } from "../../domain/Sampling.js"
import { chatFlags } from "./chatFlags.js"
import { flagTable, type FlagTable } from "./commandLine.js"
import { mcpFlags } from "./mcpFlags.js"
import { remoteFlags } from "./remoteFlags.js"
import { serveFlags } from "./serveFlags.js"
import * as ToolFlags from "./toolFlags.js"

/** Runs `run` from the module `load` imports, when the command runs. */
const lazily = <M, A, E, R>(load: () => Promise<M>, run: (module: M) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.promise(load), run)

/** A command with its name and the flags it takes. */
export interface Program<Name extends string, R, E, A> {
  readonly name: Name
  readonly flags: FlagTable
  readonly command: Command.Command<Name, R, E, A>
}

/** Makes a command and, from the same config, the table of its flags. */
const program = <Name extends string, const Config extends Command.Command.Config, R, E>(
  name: Name,
  config: Config,
  description: string,
  handler: (flags: Types.Simplify<Command.Command.ParseConfig<Config>>) => Effect.Effect<void, E, R>
): Program<Name, R, E, Types.Simplify<Command.Command.ParseConfig<Config>>> => ({
  name,
  flags: flagTable(config),
  command: Command.make(name, config, handler).pipe(Command.withDescription(description))
})

const chat = () => import("./chat.js")
const manage = () => import("./manage.js")

/** The root, `easyai` alone: the chat, with the other programs as subcommands. */
export const root = program(
  "easyai",
  chatFlags,
  "An agent in the terminal, and the programs around it: an OpenAI-compatible server, an MCP server.",
  (flags) => lazily(chat, (m) => m.chat(flags))
)

/** The subcommands: `chat`, `serve`, `mcp` and the management commands. */
export const subcommands = [
  program(
    "chat",
    chatFlags,
    "Chat with an agent on a local GGUF model (--model) or a server (--url); -p answers once.",
    (flags) => lazily(chat, (m) => m.chat(flags))
  ),
  program(
    "serve",
    serveFlags,
    "Serve a GGUF model over an OpenAI-compatible HTTP API (/v1/chat/completions).",
    (flags) => lazily(() => import("./serve.js"), (m) => m.serve(flags))
  ),
  program(
    "mcp",
    mcpFlags,
    "Serve easyai's tools over MCP (Streamable HTTP at /mcp, or --stdio) without loading a model.",
    (flags) => lazily(() => import("./mcp.js"), (m) => m.mcp(flags))
  ),
  program(
    "models",
    remoteFlags,
    "List the models of the server at --url (GET /v1/models).",
    (flags) => lazily(manage, (m) => m.models(flags))
  ),
  program(
    "tools",
    {
      ...remoteFlags,
      remote: Options.boolean("remote").pipe(Options.withDescription("List the tools of the server at --url instead (GET /v1/tools).")),
      sandbox: ToolFlags.sandbox,
      allowBash: ToolFlags.allowBash,
      noPython: ToolFlags.noPython,
      externalTools: ToolFlags.externalTools,
      webAllow: ToolFlags.webAllow,
      isolate: ToolFlags.isolate,
      toolEnv: ToolFlags.toolEnv
    },
    "List the tools an agent gets with these flags, or with --remote those of the server at --url.",
    (flags) => lazily(manage, (m) => m.tools(flags))
  ),
  program(
    "health",
    remoteFlags,
    "Show the health of the server at --url (GET /health).",
    (flags) => lazily(manage, (m) => m.health(flags))
  ),
  program(
    "props",
    remoteFlags,
    "Show the configuration of the server at --url (GET /props).",
    (flags) => lazily(manage, (m) => m.props(flags))
  ),
  program(
    "metrics",
    remoteFlags,
    "Show the Prometheus metrics of the server at --url (GET /metrics).",
    (flags) => lazily(manage, (m) => m.metrics(flags))
  ),
  program(
    "preset",
    { ...remoteFlags, name: Args.choice(PresetName.literals.map((name) => [name, name] as const), { name: "NAME" }) },
    "Switch the default sampling preset of the server at --url (POST /v1/preset).",
    (flags) => lazily(manage, (m) => m.preset(flags))
  )
] as const
