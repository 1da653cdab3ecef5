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
import { Array as Arr, Console, Effect, Logger } from "effect"
import { PresetName } from "../../domain/Sampling.js"
import { stderrLogger } from "./logging.js"
import { version } from "../../version.js"
import { builtInFlags, chooseCommand } from "./commandLine.js"
import { configProgram, replayCommand, replayDescription, replayFlags, root, subcommands } from "./commands.js"
import { reportFailure, usageExitCode } from "./failure.js"
import { colourFor, renderHelp } from "./settings/help.js"
import { longSingleDashAliases } from "./settings/options.js"
import type { Program } from "./settings/Setting.js"

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

/** llama.cpp's spellings (`-ngl`, `-fa`, `-ctk`) as `@effect/cli` reads them: `--ngl`, `--fa`, `--ctk`. */
const normalized = (argv: ReadonlyArray<string>): ReadonlyArray<string> => {
  const end = argv.indexOf("--")
  return argv.map((token, index) => ((end < 0 || index < end) && longSingleDashAliases.has(token) ? `-${token}` : token))
}

const args = normalized(process.argv.slice(2))
const argv = [...process.argv.slice(0, 2), ...args]

/** `easyai` with every subcommand: what runs when no subcommand is named, so `--completions` knows them all. */
const whole = Command.run(root.command.pipe(Command.withSubcommands(Arr.map(subcommands, (subcommand) => subcommand.command))), app)

/**
 * A named subcommand runs under a root that takes no flags. Under the whole
 * tree, @effect/cli re-parses whatever a subcommand leaves over with the
 * root's (the chat's) flags and then drops it; under a bare root a leftover
 * can only be refused.
 */
const alone = (
  command: (typeof subcommands)[number]["command"] | ReturnType<typeof configProgram>["command"] | typeof replayCommand
) =>
  Command.run(Command.make(app.name).pipe(Command.withSubcommands([command])), app)

const wantsHelp = (tokens: ReadonlyArray<string>): boolean => {
  const end = tokens.indexOf("--")
  return (end < 0 ? tokens : tokens.slice(0, end)).some((token) => token === "--help" || token === "-h")
}

const printHelp = (text: string) => Console.log(text)

const configHelp = [
  { name: "--json", description: "Print JSON instead of a table." },
  { name: "--check", description: "Also load the external tool manifests and the skills; exit 1 on any problem." }
]

/** `easyai config [COMMAND] [FLAGS…]`: COMMAND is chat (the default), serve, mcp, tools, or a management command. */
const runConfig = (rest: ReadonlyArray<string>) => {
  const named = subcommands.find((subcommand) => subcommand.name === rest[0])
  const program: Program = named?.settings ?? "chat"
  const tokens = named === undefined ? rest : rest.slice(1)
  const config = configProgram(program)
  const title = `easyai config${named === undefined ? "" : ` ${named.name}`}`
  if (wantsHelp(tokens)) {
    return printHelp(renderHelp({ command: title, description: config.description, program, extraFlags: configHelp }, colourFor(process.stdout)))
  }
  const configRoot = { name: title, flags: config.flags, once: config.once }
  return chooseCommand(tokens, configRoot, [], builtInFlags(root.command.descriptor)).pipe(
    Effect.flatMap(() => alone(config.command)([...process.argv.slice(0, 2), "config", ...tokens]))
  )
}

/** The help of the command `args` names. */
const help = () => {
  const named = subcommands.find((subcommand) => args.includes(subcommand.name))
  const colour = colourFor(process.stdout)
  if (named === undefined) {
    const commands = [...subcommands.map(({ description, name }) => ({ name, description })), {
      name: "config",
      description: configProgram("chat").description
    }, { name: "replay", description: replayDescription }]
    return printHelp(renderHelp({ command: "easyai", description: root.description, program: "chat", commands }, colour))
  }
  const subject = { command: `easyai ${named.name}`, description: named.description, program: named.settings }
  // The one positional argument of any command: the preset's name.
  return printHelp(renderHelp(named.name === "preset" ? { ...subject, arguments: PresetName.literals.join("|") } : subject, colour))
}

const run = args[0] === "config"
  ? runConfig(args.slice(1))
  : args[0] === "replay"
  ? (wantsHelp(args)
    ? printHelp(
      [`easyai replay — ${replayDescription}`, "Usage: easyai replay FILE.jsonl --to-script", "", ...replayFlags.map((flag) => `  ${flag.name.padEnd(12)}  ${flag.description}`)].join("\n")
    )
    : alone(replayCommand)(argv))
  : wantsHelp(args) && !args.includes("--completions")
  ? help()
  : chooseCommand(args, root, subcommands, builtInFlags(root.command.descriptor)).pipe(
    Effect.flatMap((chosen) => (chosen._tag === "Root" ? whole(argv) : alone(chosen.subcommand.command)(argv)))
  )

run.pipe(
  // One line naming the flag and the command; nothing has been loaded or started.
  Effect.catchTag("CommandLineError", (error) => reportFailure(error.command)(Effect.fail(error))),
  // @effect/cli has already printed what was wrong with the command line; only the exit code is left to set.
  Effect.catchIf(ValidationError.isValidationError, () =>
    Effect.sync(() => {
      process.exitCode = usageExitCode
    })),
  Effect.provide(NodeContext.layer),
  // Logs go to stderr: stdout carries answers and, under `easyai mcp --stdio`, the protocol itself.
  Effect.provide(Logger.replace(Logger.defaultLogger, stderrLogger)),
  NodeRuntime.runMain({ disablePrettyLogger: true, teardown: exitOnFailure })
)
