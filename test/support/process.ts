import { Command } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { Effect, Stream, String as Str } from "effect"
import { fileURLToPath } from "node:url"

/** The project's root folder. */
export const projectRoot = fileURLToPath(new URL("../../", import.meta.url))

const tsx = fileURLToPath(new URL("../../node_modules/.bin/tsx", import.meta.url))

const text = <E>(stream: Stream.Stream<Uint8Array, E>) => stream.pipe(Stream.decodeText(), Stream.mkString)

/** Runs a TypeScript entry point of this project in a real child process. */
export const runTs = (entry: string, ...args: ReadonlyArray<string>) => runTsWith(undefined, entry, ...args)

/** As {@link runTs}, with `input` written to the child's stdin (then closed). */
export const runTsWith = (input: string | undefined, entry: string, ...args: ReadonlyArray<string>) =>
  Effect.scoped(Effect.gen(function*() {
    const command = Command.make(tsx, entry, ...args).pipe(Command.workingDirectory(projectRoot))
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
export const startTs = (entry: string, ...args: ReadonlyArray<string>) =>
  Command.make(process.execPath, "--import", "tsx", entry, ...args).pipe(
    Command.workingDirectory(projectRoot),
    Command.start,
    Effect.provide(NodeContext.layer)
  )
