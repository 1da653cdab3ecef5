/**
 * `easyai mcp --stdio` as a real child process, driven line by line: lines
 * go in through a mailbox, stdout and stderr lines come out in queues.
 */
import { expect } from "@effect/vitest"
import { type Duration, Effect, Fiber, Mailbox, Queue, Stream } from "effect"
import { startTs } from "./process.js"
import { field } from "./server.js"

/** Whether `line` is one JSON-RPC 2.0 reply: an id (or null) and exactly one of result and error. */
export const isJsonRpcReply = (line: string): boolean => {
  let message: unknown
  try {
    message = JSON.parse(line)
  } catch {
    return false
  }
  if (typeof message !== "object" || message === null || Array.isArray(message)) return false
  const keys = new Set(Object.keys(message))
  const id = field(message, "id")
  return field(message, "jsonrpc") === "2.0" &&
    (id === null || typeof id === "string" || typeof id === "number") &&
    keys.has("result") !== keys.has("error")
}

/** Starts `easyai mcp --stdio` with `extra` flags, killed when the scope closes. */
export const startMcpStdio = (...extra: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const process = yield* startTs("src/programs/cli/main.ts", "mcp", "--stdio", ...extra)
    const input = yield* Mailbox.make<Uint8Array>()
    const writer = yield* Stream.run(Mailbox.toStream(input), process.stdin).pipe(Effect.forkScoped)
    const stdout = yield* Queue.unbounded<string>()
    const stderr = yield* Queue.unbounded<string>()
    const lines = (stream: Stream.Stream<Uint8Array, unknown>, queue: Queue.Queue<string>) =>
      stream.pipe(Stream.decodeText(), Stream.splitLines, Stream.runForEach((line) => Queue.offer(queue, line)), Effect.forkScoped)
    const stdoutDone = yield* lines(process.stdout, stdout)
    yield* lines(process.stderr, stderr)
    const encoder = new TextEncoder()
    /** Writes one line to the program's stdin. */
    const send = (line: string) => input.offer(encoder.encode(`${line}\n`))
    /** The next stdout line within `timeout`, which must be a JSON-RPC reply; returned parsed. */
    const replyWithin = (timeout: Duration.DurationInput) =>
      Effect.gen(function*() {
        const line = yield* Queue.take(stdout).pipe(
          Effect.timeoutFail({ duration: timeout, onTimeout: () => new Error("no reply on stdout") })
        )
        expect(isJsonRpcReply(line), `stdout carried something other than a JSON-RPC reply: ${line.slice(0, 200)}`).toBe(true)
        const parsed: unknown = JSON.parse(line)
        return parsed
      })
    /** The next reply, within a minute. */
    const reply = replyWithin("60 seconds")
    /** Closes stdin and waits for the program to end on its own; returns its exit code and what stdout still held. */
    const finish = Effect.gen(function*() {
      yield* input.end
      yield* Fiber.join(writer)
      const exitCode = yield* process.exitCode.pipe(
        Effect.timeoutFail({ duration: "20 seconds", onTimeout: () => new Error("easyai mcp --stdio did not end with its stdin") })
      )
      yield* Fiber.join(stdoutDone)
      return { exitCode: Number(exitCode), rest: yield* Queue.takeAll(stdout), stderr: yield* Queue.takeAll(stderr) }
    })
    return { process, send, reply, replyWithin, finish }
  })
