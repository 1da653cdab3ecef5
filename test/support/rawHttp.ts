/**
 * HTTP as a hostile client speaks it, over real loopback sockets: any
 * `Host` and `Origin`, any source address in 127.0.0.0/8, raw bytes, a body
 * that trickles, a connection held open. Every wait is bounded.
 */
import { Effect } from "effect"
import { request } from "node:http"
import { connect, type Socket } from "node:net"

/** A whole response. */
export interface RawReply {
  readonly status: number
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  readonly text: string
}

/** What {@link send} sends. */
export interface RawRequest {
  readonly port: number
  readonly method?: string
  readonly path?: string
  /** Sent as given; `host` replaces the one node would write. */
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string
  /** The source address, within 127.0.0.0/8. */
  readonly localAddress?: string
}

/** Sends one request on a fresh connection and reads the whole response (30 s at most). */
export const send = (what: RawRequest): Effect.Effect<RawReply, Error> =>
  Effect.async<RawReply, Error>((resume) => {
    const outgoing = request({
      host: "127.0.0.1",
      port: what.port,
      method: what.method ?? "GET",
      path: what.path ?? "/",
      headers: what.headers ?? {},
      agent: false,
      ...(what.localAddress === undefined ? {} : { localAddress: what.localAddress })
    }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () =>
        resume(Effect.succeed({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString("utf8") })))
      response.on("error", (error) => resume(Effect.fail(error)))
    })
    outgoing.on("error", (error) => resume(Effect.fail(error)))
    outgoing.end(what.body)
    return Effect.sync(() => outgoing.destroy())
  }).pipe(Effect.timeoutFail({ duration: "30 seconds", onTimeout: () => new Error("no response within 30 s") }))

/** A response body as JSON. */
export const jsonOf = (reply: RawReply): unknown => JSON.parse(reply.text)

/** An open connection from `localAddress`, closed with the scope. */
export const openSocket = (port: number, localAddress = "127.0.0.1") =>
  Effect.acquireRelease(
    Effect.async<Socket, Error>((resume) => {
      const socket = connect({ host: "127.0.0.1", port, localAddress })
      socket.once("connect", () => resume(Effect.succeed(socket)))
      socket.once("error", (error) => resume(Effect.fail(error)))
      return Effect.sync(() => socket.destroy())
    }),
    (socket) => Effect.sync(() => socket.destroy())
  )

/**
 * Starts collecting what `socket` receives, at once (so nothing sent
 * before the returned effect runs is missed); the effect gives it all once
 * the peer closes the connection or resets it, at most `seconds` later.
 */
export const receiveUntilClosed = (socket: Socket, seconds = 30): Effect.Effect<string, Error> => {
  const chunks: Array<Buffer> = []
  const closed = new Promise<string>((resolve) => {
    socket.on("data", (chunk: Buffer) => chunks.push(chunk))
    socket.on("error", () => undefined)
    socket.once("close", () => resolve(Buffer.concat(chunks).toString("latin1")))
    if (socket.destroyed) resolve("")
  })
  return Effect.promise(() => closed).pipe(
    Effect.timeoutFail({ duration: `${seconds} seconds`, onTimeout: () => new Error(`the connection stayed open ${seconds} s`) })
  )
}

/** Writes raw bytes on a fresh connection and reads what comes back until the server closes it. */
export const exchange = (port: number, bytes: Buffer | string) =>
  Effect.scoped(Effect.gen(function*() {
    const socket = yield* openSocket(port)
    const received = receiveUntilClosed(socket)
    socket.write(bytes)
    return yield* received
  }))

/** The status code of a raw HTTP response (0 when there was none). */
export const statusOf = (raw: string): number => Number(/^HTTP\/1\.[01] (\d{3})/.exec(raw)?.[1] ?? 0)
