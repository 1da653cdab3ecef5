/**
 * The stdio channel: the server is a child process speaking one JSON-RPC
 * message per line on its stdin and stdout (its stderr is passed to ours,
 * where such servers log). Replies are matched to requests by id, so
 * several may be in flight; notifications on stdout are handed on. The
 * process lives until the channel closes (SIGTERM, then SIGKILL) or exits
 * by itself, which fails every waiting request.
 *
 * @module
 */
import { NodeStream } from "@effect/platform-node"
import { Deferred, Duration, Effect, Either, Exit, type Scope, Stream } from "effect"
import { spawn } from "node:child_process"
import { McpError } from "../../domain/mcp.js"
import type { Channel, Outgoing } from "./channel.js"
import { isObject, parseJson } from "../../domain/json.js"

/** The process to start. */
export interface StdioChannelOptions {
  readonly name: string
  readonly command: string
  readonly args: ReadonlyArray<string>
  /** Added to this process's environment. */
  readonly env?: Readonly<Record<string, string>>
  readonly cwd?: string
  /** How long a request may wait for its reply. */
  readonly timeout: Duration.Duration
  readonly onNotification: (method: string) => Effect.Effect<void>
}

/** How long the server gets to exit after SIGTERM before SIGKILL. */
const killGrace = Duration.seconds(2)

/** Starts the server; it is stopped when the scope closes. */
export const make = (options: StdioChannelOptions): Effect.Effect<Channel, McpError, Scope.Scope> =>
  Effect.gen(function*() {
    const fail = (reason: McpError["reason"], detail: string) => new McpError({ server: options.name, reason, detail })
    const child = yield* Effect.acquireRelease(
      Effect.async<ReturnType<typeof spawn>, McpError>((resume) => {
        const started = spawn(options.command, [...options.args], {
          cwd: options.cwd,
          env: { ...process.env, ...options.env },
          stdio: ["pipe", "pipe", "inherit"]
        })
        started.once("spawn", () => resume(Effect.succeed(started)))
        started.once("error", (error) => resume(Effect.fail(fail("Unreachable", `cannot start ${options.command}: ${error.message}`))))
      }),
      (started) =>
        Effect.async<void>((resume) => {
          if (started.exitCode !== null || started.signalCode !== null) return resume(Effect.void)
          const timer = setTimeout(() => started.kill("SIGKILL"), Duration.toMillis(killGrace))
          started.once("exit", () => {
            clearTimeout(timer)
            resume(Effect.void)
          })
          started.stdin?.end()
          started.kill("SIGTERM")
        })
    )
    // Requests waiting for their reply, by id. Owned by this channel.
    const waiting = new Map<number, Deferred.Deferred<unknown, McpError>>()
    const failAll = (error: McpError) =>
      Effect.forEach([...waiting.values()], (pending) => Deferred.fail(pending, error), { discard: true })

    const output = child.stdout
    if (output === null) return yield* fail("Unreachable", "the server process has no stdout")
    const stdout = NodeStream.fromReadable(() => output, (error) => fail("Unreachable", String(error)))
    yield* stdout.pipe(
      Stream.decodeText(),
      Stream.splitLines,
      Stream.filter((line) => line.trim() !== ""),
      Stream.runForEach((line) => {
        const parsed = parseJson(line)
        if (Either.isLeft(parsed) || !isObject(parsed.right)) return Effect.logWarning(`MCP server ${options.name} wrote a non-JSON line`)
        const message = parsed.right
        if (typeof message["method"] === "string" && !("id" in message)) return options.onNotification(message["method"])
        const id = message["id"]
        if (typeof id !== "number") return Effect.void
        const pending = waiting.get(id)
        if (pending === undefined) return Effect.void
        waiting.delete(id)
        return Deferred.succeed(pending, message)
      }),
      Effect.onExit((exit) => failAll(fail("Unreachable", Exit.isSuccess(exit) ? "the server process exited" : "the server's output broke off"))),
      Effect.forkScoped
    )

    const write = (message: Outgoing) =>
      Effect.async<void, McpError>((resume) => {
        const stdin = child.stdin
        if (stdin === null || stdin.destroyed || child.exitCode !== null) {
          return resume(Effect.fail(fail("Unreachable", "the server process has exited")))
        }
        stdin.write(`${JSON.stringify(message)}\n`, (error) =>
          resume(error === null || error === undefined ? Effect.void : Effect.fail(fail("Unreachable", error.message))))
      })

    return {
      request: (message) =>
        Effect.gen(function*() {
          const reply = yield* Deferred.make<unknown, McpError>()
          waiting.set(message.id, reply)
          yield* write(message).pipe(Effect.tapError(() => Effect.sync(() => waiting.delete(message.id))))
          return yield* Deferred.await(reply).pipe(
            Effect.timeoutFail({
              duration: options.timeout,
              onTimeout: () => fail("Unreachable", `no reply within ${Duration.format(options.timeout)}`)
            }),
            Effect.ensuring(Effect.sync(() => waiting.delete(message.id)))
          )
        }),
      notify: write,
      agreed: () => Effect.void,
      close: Effect.void
    } satisfies Channel
  })
