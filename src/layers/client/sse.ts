/**
 * Server-sent events over a response body: bytes in, the `data:` payloads
 * out, until `data: [DONE]`.
 *
 * @module
 */
import { createParser } from "eventsource-parser"
import { Stream } from "effect"

/** One event of the stream: a data payload, or the `[DONE]` sentinel (always last). */
export type SseMessage =
  | { readonly _tag: "Data"; readonly data: string }
  | { readonly _tag: "Done" }

const done: SseMessage = { _tag: "Done" }

/**
 * The data payloads of an SSE byte stream. Event names, ids and comments
 * (keep-alive `: ping` lines) are ignored. `[DONE]` is emitted as `Done` and
 * ends the stream: the body is not read further. An event the server did not
 * terminate with a blank line before a clean end of the body is still
 * delivered.
 */
export const messages = <E, R>(bytes: Stream.Stream<Uint8Array, E, R>): Stream.Stream<SseMessage, E, R> =>
  Stream.suspend(() => {
    // Owned by this one run of the stream: the parser pushes, each step drains.
    const pending: Array<string> = []
    const parser = createParser({ onEvent: (event) => pending.push(event.data) })
    const drain = (): ReadonlyArray<string> => pending.splice(0)
    return bytes.pipe(
      Stream.decodeText(),
      Stream.mapConcat((text) => {
        parser.feed(text)
        return drain()
      }),
      Stream.concat(Stream.suspend(() => {
        parser.feed("\n\n")
        return Stream.fromIterable(drain())
      })),
      Stream.map((data): SseMessage => (data.trim() === "[DONE]" ? done : { _tag: "Data", data })),
      Stream.takeUntil((message) => message._tag === "Done")
    )
  })
