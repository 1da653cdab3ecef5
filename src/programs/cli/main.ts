#!/usr/bin/env node
/**
 * The `easyai` command line.
 *
 * @module
 */
import { Command, ValidationError } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect, Logger } from "effect"
import { stderrLogger } from "./logging.js"
import { version } from "../version.js"
import { chatCommand, manageCommands, mcpCommand, rootCommand, serveCommand } from "./commands.js"

// A listener stays on SIGINT/SIGTERM for the whole run. NodeRuntime.runMain stops the program
// gracefully on the first signal and then removes its own listener; a library loaded later
// (node-llama-cpp brings signal-exit) re-raises a signal it finds no other listener for, which
// would kill the process in the middle of that graceful stop.
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => undefined)

const cli = Command.run(
  rootCommand.pipe(Command.withSubcommands([chatCommand, serveCommand, mcpCommand, ...manageCommands])),
  { name: "easyai", version }
)

cli(process.argv).pipe(
  // @effect/cli has already printed what was wrong with the command line; only the exit code is left to set.
  Effect.catchIf(ValidationError.isValidationError, () =>
    Effect.sync(() => {
      process.exitCode = 1
    })),
  Effect.provide(NodeContext.layer),
  // Logs go to stderr: stdout carries answers and, under `easyai mcp --stdio`, the protocol itself.
  Effect.provide(Logger.replace(Logger.defaultLogger, stderrLogger)),
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
