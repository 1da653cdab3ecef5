/**
 * `easyai serve` and `easyai mcp` as real processes on a free loopback
 * port, found through their banners and killed with the scope.
 */
import { Effect, Queue, Stream } from "effect"
import { engineConfig, testModels } from "./models.js"
import { startTs } from "./process.js"

/** The smallest real model when the shared models are there, else the generated one. */
const model = testModels.find((candidate) => candidate.name === "stories260K.gguf") ?? testModels[0]

/** A started server: its port and base URL, and its banner lines. */
export interface RealServer {
  readonly port: number
  readonly url: string
  readonly banner: ReadonlyArray<string>
}

const start = (args: ReadonlyArray<string>, bannerPattern: RegExp, bannerLines: number) =>
  Effect.gen(function*() {
    const process = yield* startTs("src/programs/cli/main.ts", ...args)
    const output = yield* Queue.unbounded<string>()
    yield* Stream.merge(process.stdout, process.stderr).pipe(
      Stream.decodeText(),
      Stream.splitLines,
      Stream.runForEach((line) => Queue.offer(output, line)),
      Effect.forkScoped
    )
    const first = yield* Queue.take(output).pipe(
      Effect.repeat({ until: (line) => bannerPattern.test(line) }),
      Effect.timeoutFail({ duration: "90 seconds", onTimeout: () => new Error(`no banner matching ${bannerPattern}`) })
    )
    const rest = yield* Effect.forEach(Array.from({ length: bannerLines - 1 }), () =>
      Queue.take(output).pipe(Effect.timeoutFail({ duration: "30 seconds", onTimeout: () => new Error("the banner stopped short") })))
    const port = Number(/:(\d+)/.exec(first.slice(first.indexOf("http://") + 7))?.[1] ?? Number.NaN)
    return { port, url: `http://127.0.0.1:${port}`, banner: [first, ...rest] } satisfies RealServer
  })

/** `easyai serve` on the smallest model, `--port 0 --threads 1 --ctx 512` and `extra`. */
export const startServe = (...extra: ReadonlyArray<string>) => {
  if (model === undefined) return Effect.die(new Error("no test model"))
  return start(
    ["serve", "--model", engineConfig(model).modelPath, "--port", "0", "--threads", "1", "--ctx", "512", ...extra],
    /^easyai serve · http:\/\//,
    4
  )
}

/** `easyai mcp` over HTTP on `--port 0` with `extra`. */
export const startMcp = (...extra: ReadonlyArray<string>) =>
  start(["mcp", "--port", "0", ...extra], /^easyai mcp · http:\/\//, 2)
