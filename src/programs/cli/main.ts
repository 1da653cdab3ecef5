#!/usr/bin/env node
/**
 * The `easyai` command line.
 *
 * @module
 */
import { Command, Options, ValidationError } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Logger, Option } from "effect"
import * as NoChatModel from "../../layers/model/NoChatModel.js"
import * as SessionStack from "../../layers/session/SessionStack.js"
import { Session } from "../../services/Session.js"
import { version } from "../version.js"
import { healthCommand, metricsCommand, modelsCommand, presetCommand, propsCommand, toolsCommand } from "./manage.js"
import { mcpCommand } from "./mcp.js"
import { serveCommand } from "./serve.js"

const showSystemPrompt = Options.boolean("show-system-prompt").pipe(
  Options.withDescription("Print the system prompt a session would start with, then exit.")
)
const system = Options.text("system").pipe(
  Options.withAlias("s"),
  Options.withDescription("Replace the built-in base prompt with this text."),
  Options.optional
)
const noBuiltinSystem = Options.boolean("no-builtin-system").pipe(
  Options.withDescription("Drop the built-in base prompt.")
)

const easyai = Command.make("easyai", { showSystemPrompt, system, noBuiltinSystem }, (flags) =>
  Effect.gen(function*() {
    if (!flags.showSystemPrompt) {
      return yield* Console.log("easyai: run `easyai --help` for the available options.")
    }
    const session = yield* Session
    yield* Console.log(yield* session.renderSystem)
  }).pipe(Effect.provide(SessionStack.layer({
    model: NoChatModel.layer("pass a model to chat"),
    session: {
      noBuiltinSystem: flags.noBuiltinSystem,
      ...Option.match(flags.system, { onNone: () => ({}), onSome: (text) => ({ system: text }) })
    }
  }))))

const cli = Command.run(easyai.pipe(Command.withSubcommands([
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
