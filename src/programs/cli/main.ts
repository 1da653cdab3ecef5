#!/usr/bin/env node
/**
 * The `easyai` command line.
 *
 * @module
 */
import { Command, ValidationError } from "@effect/cli"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { defaultTeardown, type Teardown } from "@effect/platform/Runtime"
import { Array as Arr, Effect, Logger } from "effect"
import { stderrLogger } from "./logging.js"
import { version } from "../version.js"
import { builtInFlags, chooseCommand } from "./commandLine.js"
import { root, subcommands } from "./commands.js"
import { reportFailure } from "./failure.js"

// A listener stays on SIGINT/SIGTERM for the whole run. NodeRuntime.runMain stops the program
// gracefully on the first signal and then removes its own listener; a library loaded later
// (node-llama-cpp brings signal-exit) re-raises a signal it finds no other listener for, which
// would kill the process in the middle of that graceful stop.
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => undefined)

const app = { name: "easyai", version }

/**
 * A command that failed has reported it in one line and set the exit code:
 * it exits then, rather than wait on work a library left running that
 * nothing can cancel (node-llama-cpp's downloader keeps retrying a server
 * that does not answer). A command that succeeded ends as before, when
 * nothing is left to do.
 */
const exitOnFailure: Teardown = (exit, onExit) =>
  defaultTeardown(exit, (code) => onExit(code !== 0 ? code : typeof process.exitCode === "number" ? process.exitCode : 0))

/** `easyai` with every subcommand: what runs when no subcommand is named, so `--help` lists them all. */
const whole = Command.run(root.command.pipe(Command.withSubcommands(Arr.map(subcommands, (subcommand) => subcommand.command))), app)

/**
 * A named subcommand runs under a root that takes no flags. Under the whole
 * tree, @effect/cli re-parses whatever a subcommand leaves over with the
 * root's (the chat's) flags and then drops it; under a bare root a leftover
 * can only be refused.
 */
const alone = (subcommand: (typeof subcommands)[number]) =>
  Command.run(Command.make(app.name).pipe(Command.withSubcommands([subcommand.command])), app)

chooseCommand(process.argv.slice(2), root, subcommands, builtInFlags(root.command.descriptor)).pipe(
  Effect.flatMap((chosen) => chosen._tag === "Root" ? whole(process.argv) : alone(chosen.subcommand)(process.argv)),
  // One line naming the flag and the command; nothing has been loaded or started.
  Effect.catchTag("CommandLineError", (error) => reportFailure(error.command)(Effect.fail(error))),
  // @effect/cli has already printed what was wrong with the command line; only the exit code is left to set.
  Effect.catchIf(ValidationError.isValidationError, () =>
    Effect.sync(() => {
      process.exitCode = 1
    })),
  Effect.provide(NodeContext.layer),
  // Logs go to stderr: stdout carries answers and, under `easyai mcp --stdio`, the protocol itself.
  Effect.provide(Logger.replace(Logger.defaultLogger, stderrLogger)),
  NodeRuntime.runMain({ disablePrettyLogger: true, teardown: exitOnFailure })
)
