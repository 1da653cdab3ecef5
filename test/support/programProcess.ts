/**
 * The CLI's long-running programs (`easyai serve`, `easyai mcp` over HTTP)
 * as real child processes, killed when the test's scope closes, and found
 * through the banner they print.
 */
import type { CommandExecutor } from "@effect/platform"
import { Effect, Fiber, Option, Queue, Stream } from "effect"
import { engineConfig, testModels } from "./models.js"
import { startTs } from "./process.js"

/** A running program. */
export interface Program {
  readonly process: CommandExecutor.Process
  /** The next line on stdout (where banners go), within a minute; fails with the program's stderr if it ends first. */
  readonly nextLine: Effect.Effect<string, Error>
  /** The next line on stdout or stderr (where logs go) that matches `pattern`, within a minute. */
  readonly lineMatching: (pattern: RegExp) => Effect.Effect<string, Error>
}

/** A line of output, or the end of that stream. */
type Line = Option.Option<string>

const withinAMinute = (what: string) =>
  Effect.timeoutFail({ duration: "60 seconds", onTimeout: () => new Error(`easyai ${what} printed no such line`) })

/** Starts `easyai ...args`. Its lines are queued as they come: stdout alone, and stdout with stderr. */
export const startProgram = (...args: ReadonlyArray<string>) => startEntry("src/programs/cli/main.ts", ...args)

/** As {@link startProgram}, for another entry point of this project (a test program, say). */
export const startEntry = (entry: string, ...args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const process = yield* startTs(entry, ...args)
    const what = args.join(" ")
    const stdout = yield* Queue.unbounded<Line>()
    const everything = yield* Queue.unbounded<Line>()
    const queueLines = (stream: Stream.Stream<Uint8Array, unknown>, queues: ReadonlyArray<Queue.Queue<Line>>) =>
      stream.pipe(
        Stream.decodeText(),
        Stream.splitLines,
        Stream.runForEach((line) => Effect.forEach(queues, (queue) => Queue.offer(queue, Option.some(line)))),
        Effect.zipRight(Effect.forEach(queues, (queue) => Queue.offer(queue, Option.none()))),
        Effect.forkScoped
      )
    const stderr = yield* Queue.unbounded<string>()
    yield* queueLines(process.stdout, [stdout, everything])
    const stderrDone = yield* process.stderr.pipe(
      Stream.decodeText(),
      Stream.splitLines,
      Stream.runForEach((line) => Effect.zipRight(Queue.offer(stderr, line), Queue.offer(everything, Option.some(line)))),
      Effect.forkScoped
    )
    /** Why no line came: the program ended, and this is what it said on stderr. */
    const ended = Effect.gen(function*() {
      yield* Effect.ignore(Fiber.join(stderrDone))
      const said = yield* Queue.takeAll(stderr)
      return new Error(`easyai ${what} ended: ${[...said].join("\n")}`)
    })
    const next = (queue: Queue.Queue<Line>) =>
      Effect.flatMap(Queue.take(queue), Option.match({ onNone: () => Effect.flip(ended), onSome: Effect.succeed }))
    const program: Program = {
      process,
      nextLine: next(stdout).pipe(withinAMinute(what)),
      lineMatching: (pattern) =>
        next(everything).pipe(Effect.repeat({ until: (line) => pattern.test(line) }), withinAMinute(`${what} (${pattern})`))
    }
    return program
  })

/** A running server: its banner's lines, the URL it names and its port. */
export interface Server extends Program {
  readonly banner: ReadonlyArray<string>
  readonly url: string
  readonly port: number
}

/** Starts a server and reads its banner: the stdout line matching `pattern` (its URL in group 1) and the `lines - 1` after it. */
const startServer = (args: ReadonlyArray<string>, pattern: RegExp, lines: number) =>
  startEntryServer("src/programs/cli/main.ts", args, pattern, lines)

/** As `startServer`, for another entry point of this project. */
export const startEntryServer = (entry: string, args: ReadonlyArray<string>, pattern: RegExp, lines: number) =>
  Effect.gen(function*() {
    const program = yield* startEntry(entry, ...args)
    const first = yield* program.nextLine.pipe(Effect.repeat({ until: (line) => pattern.test(line) }))
    const rest = yield* Effect.forEach(Array.from({ length: lines - 1 }), () => program.nextLine)
    const url = pattern.exec(first)?.[1] ?? ""
    const server: Server = { ...program, banner: [first, ...rest], url, port: Number(new URL(url).port) }
    return server
  })

/** The first line of `easyai serve`'s banner; group 1 is its URL. */
export const serveBanner = /^easyai serve · (http:\/\/127\.0\.0\.1:\d+)$/
/** The first line of `easyai mcp`'s banner over HTTP; group 1 is its `/mcp` URL. */
export const mcpBanner = /^easyai mcp · (http:\/\/127\.0\.0\.1:\d+\/mcp)$/

/** `easyai serve ...args` (a `--port 0` among them), once its four-line banner is out. */
export const startServe = (...args: ReadonlyArray<string>) => startServer(["serve", ...args], serveBanner, 4)

/** The smallest real model when the shared models are there, else the generated one. */
const smallestModel = testModels.find((candidate) => candidate.name === "stories260K.gguf") ?? testModels[0]

/** `easyai serve` on the smallest test model, `--port 0 --threads 1 --ctx 1024` (room for the built-in system prompt and a short chat), and `extra`. */
export const startServeSmall = (...extra: ReadonlyArray<string>) =>
  smallestModel === undefined
    ? Effect.die(new Error("no test model"))
    : startServe("--model", engineConfig(smallestModel).modelPath, "--port", "0", "--threads", "1", "--ctx", "1024", ...extra)

/** `easyai mcp` over HTTP on `--port 0` with `extra`, once its two-line banner is out. */
export const startMcp = (...extra: ReadonlyArray<string>) => startServer(["mcp", "--port", "0", ...extra], mcpBanner, 2)
