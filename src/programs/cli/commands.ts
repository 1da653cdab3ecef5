/**
 * Every command of `easyai`, defined from its flags alone: a command's body
 * is imported only when it runs, so `easyai --help` (or a typo) loads no
 * model, server or MCP code.
 *
 * @module
 */
import { Args, Command, Options } from "@effect/cli"
import { Effect } from "effect"
import { PresetName } from "../../domain/Sampling.js"
import { chatFlags } from "./chatFlags.js"
import { mcpFlags } from "./mcpFlags.js"
import { remoteFlags } from "./remoteFlags.js"
import { serveFlags } from "./serveFlags.js"
import * as ToolFlags from "./toolFlags.js"

/** Runs `run` from the module `load` imports, when the command runs. */
const lazily = <M, A, E, R>(load: () => Promise<M>, run: (module: M) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.promise(load), run)

const chatDescription = "Chat with an agent on a local GGUF model (--model) or a server (--url); -p answers once."

/** `easyai chat`, also what `easyai` alone runs. */
export const chatCommand = Command.make("chat", chatFlags, (flags) => lazily(() => import("./chat.js"), (m) => m.chat(flags))).pipe(
  Command.withDescription(chatDescription)
)

/** The root: the chat, with the other programs as subcommands. */
export const rootCommand = Command.make("easyai", chatFlags, (flags) => lazily(() => import("./chat.js"), (m) => m.chat(flags))).pipe(
  Command.withDescription("An agent in the terminal, and the programs around it: an OpenAI-compatible server, an MCP server.")
)

/** `easyai serve`. */
export const serveCommand = Command.make("serve", serveFlags, (flags) => lazily(() => import("./serve.js"), (m) => m.serve(flags))).pipe(
  Command.withDescription("Serve a GGUF model over an OpenAI-compatible HTTP API (/v1/chat/completions).")
)

/** `easyai mcp`. */
export const mcpCommand = Command.make("mcp", mcpFlags, (flags) => lazily(() => import("./mcp.js"), (m) => m.mcp(flags))).pipe(
  Command.withDescription("Serve easyai's tools over MCP (Streamable HTTP at /mcp, or --stdio) without loading a model.")
)

const manage = () => import("./manage.js")

/** The management commands. */
export const manageCommands = [
  Command.make("models", remoteFlags, (flags) => lazily(manage, (m) => m.models(flags))).pipe(
    Command.withDescription("List the models of the server at --url (GET /v1/models).")
  ),
  Command.make(
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
    (flags) => lazily(manage, (m) => m.tools(flags))
  ).pipe(Command.withDescription("List the tools an agent gets with these flags, or with --remote those of the server at --url.")),
  Command.make("health", remoteFlags, (flags) => lazily(manage, (m) => m.health(flags))).pipe(
    Command.withDescription("Show the health of the server at --url (GET /health).")
  ),
  Command.make("props", remoteFlags, (flags) => lazily(manage, (m) => m.props(flags))).pipe(
    Command.withDescription("Show the configuration of the server at --url (GET /props).")
  ),
  Command.make("metrics", remoteFlags, (flags) => lazily(manage, (m) => m.metrics(flags))).pipe(
    Command.withDescription("Show the Prometheus metrics of the server at --url (GET /metrics).")
  ),
  Command.make(
    "preset",
    { ...remoteFlags, name: Args.choice(PresetName.literals.map((name) => [name, name] as const), { name: "NAME" }) },
    (flags) => lazily(manage, (m) => m.preset(flags))
  ).pipe(Command.withDescription("Switch the default sampling preset of the server at --url (POST /v1/preset)."))
] as const
