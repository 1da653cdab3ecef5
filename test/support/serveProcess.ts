/**
 * `easyai serve` as a real child process: started through the CLI's entry
 * point, found by its banner, killed when the scope closes.
 */
import { Effect, Queue, Stream } from "effect"
import { startTs } from "./process.js"

/**
 * Starts `easyai serve` with `args` (a `--port 0` among them) and waits for
 * its banner. The process's output lines are queued as they come;
 * `lineMatching` waits, bounded, for the next one that matches.
 */
export const startServe = (args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const process = yield* startTs("src/programs/cli/main.ts", "serve", ...args)
    const output = yield* Queue.unbounded<string>()
    yield* Stream.merge(process.stdout, process.stderr).pipe(
      Stream.decodeText(),
      Stream.splitLines,
      Stream.runForEach((line) => Queue.offer(output, line)),
      Effect.forkScoped
    )
    /** The next output line matching `pattern`. */
    const lineMatching = (pattern: RegExp) =>
      Queue.take(output).pipe(
        Effect.repeat({ until: (line) => pattern.test(line) }),
        Effect.timeoutFail({ duration: "60 seconds", onTimeout: () => new Error(`no output line matched ${pattern}`) })
      )
    const banner = yield* lineMatching(/^easyai serve · http:\/\//)
    const url = banner.slice(banner.indexOf("http://"))
    return { process, url, lineMatching }
  })
