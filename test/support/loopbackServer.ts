/**
 * A real HTTP server on a loopback address, closed with the test's scope,
 * that records what reached it: every TCP connection and every request.
 */
import { Duration, Effect, type Scope } from "effect"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"

/** Answers one request. */
export type Handler = (req: IncomingMessage, res: ServerResponse) => void

/** A listening server and what reached it so far. */
export interface LoopbackServer {
  /** e.g. `http://127.0.0.1:40123` or `http://[::1]:40123`. */
  readonly base: string
  readonly port: number
  /** The request URLs (path and query) received, in order. */
  readonly hits: Array<string>
  /** TCP connections accepted, whether or not a request came over them. */
  readonly connections: () => number
}

/** What to listen on: a loopback address (127.0.0.1 by default) and a port (any free one by default). */
export interface ListenOn {
  readonly host?: string
  readonly port?: number
}

const notFound: Handler = (_req, res) => {
  res.writeHead(404, { "content-type": "text/plain" }).end("not found")
}

/** Starts a server answering with `handler` (404 by default); fails when the address cannot be bound. */
export const loopbackServer = (
  handler: Handler = notFound,
  on: ListenOn = {}
): Effect.Effect<LoopbackServer, Error, Scope.Scope> => {
  const host = on.host ?? "127.0.0.1"
  return Effect.acquireRelease(
    Effect.async<{ server: ReturnType<typeof createServer>; value: LoopbackServer }, Error>((resume) => {
      const hits: Array<string> = []
      let connections = 0
      const server = createServer((req, res) => {
        hits.push(req.url ?? "/")
        handler(req, res)
      })
      server.on("connection", () => connections++)
      server.once("error", (error) => resume(Effect.fail(error)))
      server.listen(on.port ?? 0, host, () => {
        const address = server.address()
        const port = typeof address === "object" && address !== null ? address.port : 0
        const shown = host.includes(":") ? `[${host}]` : host
        resume(Effect.succeed({ server, value: { base: `http://${shown}:${port}`, port, hits, connections: () => connections } }))
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(Effect.map(({ value }) => value))
}

/**
 * The server's connection count once it reaches `count`, or after about two
 * seconds: the server accepts a connection asynchronously, so a test waits
 * for it rather than racing it.
 */
export const connectionsSoon = (connections: () => number, count: number): Effect.Effect<number> =>
  Effect.gen(function*() {
    for (let attempt = 0; attempt < 200 && connections() < count; attempt++) yield* Effect.sleep(Duration.millis(10))
    return connections()
  })
