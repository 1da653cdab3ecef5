/**
 * `easyai mcp` over HTTP as a real child process, found through its banner
 * and killed with the test's scope, and a JSON-RPC POST to it.
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Effect, Queue, Stream } from "effect"
import { startTs } from "./process.js"

/** The first line `easyai mcp` prints over HTTP. */
export const bannerPattern = /^easyai mcp · http:\/\/127\.0\.0\.1:(\d+)\/mcp$/

/** Starts `easyai mcp` over HTTP on a free port; its output lines are queued as they come. */
export const startHttp = (...extra: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const process = yield* startTs("src/programs/cli/main.ts", "mcp", "--port", "0", ...extra)
    const stdout = yield* Queue.unbounded<string>()
    yield* process.stdout.pipe(
      Stream.decodeText(),
      Stream.splitLines,
      Stream.runForEach((line) => Queue.offer(stdout, line)),
      Effect.forkScoped
    )
    const nextLine = Queue.take(stdout).pipe(
      Effect.timeoutFail({ duration: "60 seconds", onTimeout: () => new Error("easyai mcp printed no line") })
    )
    const banner = yield* nextLine
    const summary = yield* nextLine
    return { process, banner, summary, port: Number(bannerPattern.exec(banner)?.[1] ?? Number.NaN) }
  })

/** POSTs one JSON-RPC message to `url` and reads the reply. */
export const post = (url: string, message: unknown, headers: Readonly<Record<string, string>> = {}) =>
  Effect.scoped(Effect.gen(function*() {
    const response = yield* (yield* HttpClient.HttpClient).execute(
      HttpClientRequest.post(url).pipe(
        HttpClientRequest.setHeaders({ accept: "application/json, text/event-stream", ...headers }),
        HttpClientRequest.bodyUnsafeJson(message)
      )
    )
    const text = yield* response.text
    return { status: response.status, session: response.headers["mcp-session-id"], body: text === "" ? undefined : JSON.parse(text) }
  }))

