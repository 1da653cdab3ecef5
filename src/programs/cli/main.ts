#!/usr/bin/env node
/**
 * The `easyai` command line.
 *
 * @module
 */
import { Command, ValidationError } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Effect, Logger } from "effect"
import { version } from "../version.js"
import { healthCommand, metricsCommand, modelsCommand, presetCommand, propsCommand, toolsCommand } from "./manage.js"
import { chat, chatCommand, chatFlags } from "./chat.js"
import { mcpCommand } from "./mcp.js"
import { serveCommand } from "./serve.js"

/** `easyai` alone is the chat; the other programs are its subcommands. */
const easyai = Command.make("easyai", chatFlags, chat).pipe(
  Command.withDescription("An agent in the terminal, and the programs around it: an OpenAI-compatible server, an MCP server.")
)

const cli = Command.run(easyai.pipe(Command.withSubcommands([
    chatCommand,
    serveCommand,
    mcpCommand,
    modelsCommand,
    toolsCommand,
    healthCommand,
    propsCommand,
    metricsCommand,
    presetCommand
  ])), { name: "easyai", version })

cli(process.argv).pipe(
  // @effect/cli has already printed what was wrong with the command line; only the exit code is left to set.
  Effect.catchIf(ValidationError.isValidationError, () =>
    Effect.sync(() => {
      process.exitCode = 1
    })),
  Effect.provide(NodeContext.layer),
  // Logs go to stderr: stdout carries answers and, under `easyai mcp --stdio`, the protocol itself.
  Effect.provide(Logger.replace(Logger.defaultLogger, Logger.prettyLogger({ stderr: true }))),
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
