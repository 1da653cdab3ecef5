import { Command } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { Effect, Stream, String as Str } from "effect"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

/** The project's root folder. */
export const projectRoot = fileURLToPath(new URL("../../", import.meta.url))

const tsx = fileURLToPath(new URL("../../node_modules/.bin/tsx", import.meta.url))

/** The CLI's sources, as tests name the entry point. */
export const cliSource = "src/programs/cli/main.ts"

/** The bundled CLI the global setup builds from the sources. */
export const cliBundle = path.join(projectRoot, "dist/cli/easyai.js")

/** `easyai` as a command line: node on the bundled CLI, as a user runs it. */
export const cliCommand: readonly [string, string] = [process.execPath, cliBundle]

/**
 * The command line that runs `entry`: the CLI's sources run as their bundle
 * (tsx would take seconds of CPU to start each one), any other entry point
 * under tsx.
 */
const commandLine = (entry: string, args: ReadonlyArray<string>, viaTsxBinary: boolean) =>
  entry === cliSource
    ? Command.make(...cliCommand, ...args)
    : viaTsxBinary
    ? Command.make(tsx, entry, ...args)
    : Command.make(process.execPath, "--import", "tsx", entry, ...args)

const text = <E>(stream: Stream.Stream<Uint8Array, E>) => stream.pipe(Stream.decodeText(), Stream.mkString)

/** Runs a TypeScript entry point of this project in a real child process. */
export const runTs = (entry: string, ...args: ReadonlyArray<string>) => runTsWith(undefined, entry, ...args)

/** As {@link runTs}, with `input` written to the child's stdin (then closed). */
export const runTsWith = (input: string | undefined, entry: string, ...args: ReadonlyArray<string>) =>
  runTsEnv({}, input, entry, ...args)

/** As {@link runTsWith}, with `env` set in (or added to) the child's environment. */
export const runTsEnv = (
  env: Readonly<Record<string, string>>,
  input: string | undefined,
  entry: string,
  ...args: ReadonlyArray<string>
) =>
  Effect.scoped(Effect.gen(function*() {
    const command = commandLine(entry, args, true).pipe(Command.workingDirectory(projectRoot), Command.env(env))
    const process = yield* (input === undefined ? command : Command.feed(command, input)).pipe(Command.start)
    const [stdout, stderr, exitCode] = yield* Effect.all(
      [text(process.stdout), text(process.stderr), process.exitCode],
      { concurrency: 3 }
    )
    return { stdout, stderr: Str.trim(stderr), exitCode: Number(exitCode) }
  })).pipe(Effect.provide(NodeContext.layer))

/**
 * Starts a TypeScript entry point of this project as a real child process,
 * killed when the scope closes. Node loads tsx in-process (`--import tsx`),
 * so signals reach the program itself rather than a wrapper around it.
 */
export const startTs = (entry: string, ...args: ReadonlyArray<string>) => startTsEnv({}, entry, ...args)

/** As {@link startTs}, with `env` set in (or added to) the child's environment. */
export const startTsEnv = (env: Readonly<Record<string, string>>, entry: string, ...args: ReadonlyArray<string>) =>
  commandLine(entry, args, false).pipe(
    Command.workingDirectory(projectRoot),
    Command.env(env),
    Command.start,
    Effect.provide(NodeContext.layer)
  )

/** Runs the CLI in a real child process with `cwd` as its working directory, `input` on its stdin and `env` added to its environment. */
export const runCli = (
  options: { readonly cwd: string; readonly input?: string; readonly env?: Readonly<Record<string, string>> },
  ...args: ReadonlyArray<string>
) =>
  Effect.scoped(Effect.gen(function*() {
    const command = Command.make(...cliCommand, ...args).pipe(
      Command.workingDirectory(options.cwd),
      Command.env(options.env ?? {})
    )
    const child = yield* Command.feed(command, options.input ?? "").pipe(Command.start)
    const [stdout, stderr, exitCode] = yield* Effect.all(
      [text(child.stdout), text(child.stderr), child.exitCode],
      { concurrency: 3 }
    )
    return { stdout, stderr: Str.trim(stderr), exitCode: Number(exitCode) }
  })).pipe(Effect.provide(NodeContext.layer))
