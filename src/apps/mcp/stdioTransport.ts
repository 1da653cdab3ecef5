/**
 * MCP over stdio, for desktop clients that start the server themselves:
 * one JSON-RPC message per line on stdin, one reply per line on stdout.
 * Requests run concurrently (a slow tool does not hold up a `ping`), so
 * replies may come in any order, each with its request's id. stdout
 * carries the protocol only; logs go to stderr. A line longer than
 * {@link maxLineLength} is refused as soon as it passes the cap, and the
 * rest of it is dropped unread into memory; the next line is served.
 *
 * @module
 */
import { Effect, Either, Stream } from "effect"
import { errorReply, JsonRpcErrorCode } from "../../domain/mcp.js"
import { boundedLines } from "./boundedLines.js"
import { classifyText, type Dispatcher, maxConcurrentRequests } from "./dispatcher.js"

/** The longest line read, in characters; a longer one is answered with an error and dropped. */
export const maxLineLength = 8 * 1024 * 1024

/**
 * Serves `input` until it ends (the client closed the pipe), writing each
 * reply as one line with `write`.
 */
export const serve = <E, R>(
  dispatcher: Dispatcher,
  input: Stream.Stream<Uint8Array, E, R>,
  write: (line: string) => Effect.Effect<void>
): Effect.Effect<void, E, R> =>
  input.pipe(
    Stream.decodeText(),
    (text) => boundedLines(text, maxLineLength),
    Stream.filter((line) => line._tag === "TooLong" || line.text.trim() !== ""),
    Stream.mapEffect((line) => {
      if (line._tag === "TooLong") {
        return Effect.succeed(errorReply(null, JsonRpcErrorCode.InvalidRequest, `message longer than ${maxLineLength} characters`))
      }
      const incoming = classifyText(line.text)
      return Either.isLeft(incoming) ? Effect.succeed(incoming.left) : dispatcher.handle(incoming.right)
    }, { concurrency: maxConcurrentRequests, unordered: true }),
    Stream.runForEach((reply) => (reply === undefined ? Effect.void : write(JSON.stringify(reply))))
  )
