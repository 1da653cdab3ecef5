/**
 * A model named by a URI that cannot be downloaded: the real CLI, in a
 * real process, fails in one line within a bounded time instead of
 * waiting forever. Nothing leaves the machine: the Hugging Face endpoint
 * (`MODEL_ENDPOINT`, which node-llama-cpp honours) and every URL point at
 * loopback servers of the test's own, which record that they were asked,
 * and `HOME` is a fresh directory so the models directory is empty.
 */
import { describe, expect, it } from "@effect/vitest"
import { Clock, Deferred, Effect, Runtime } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { runTsEnv } from "../support/process.js"
import { loopbackServer } from "../support/loopbackServer.js"
import { onTerminal } from "../support/pty.js"
import { tempDir } from "../support/tempDir.js"
import { tinyGgufBytes } from "../support/tinyGguf.js"

/** `easyai ...args` with the hub at `endpoint`, in a fresh home; its result and how long it took. */
const easyai = (endpoint: string, ...args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const start = yield* Clock.currentTimeMillis
    const result = yield* runTsEnv(
      { HOME: tempDir(), MODEL_ENDPOINT: endpoint, HF_ENDPOINT: endpoint },
      undefined,
      "src/programs/cli/main.ts",
      ...args
    )
    return { ...result, seconds: ((yield* Clock.currentTimeMillis) - start) / 1000 }
  })

/** stderr's lines, without npm's notices about its own configuration. */
const lines = (stderr: string) => stderr.split("\n").filter((line) => line !== "" && !line.startsWith("npm "))

const offline =
  "the download did not start within 10s (no answer from the server): this machine may be offline; pass the path of a local GGUF file instead"

describe("a model that cannot be downloaded", () => {
  it.scopedLive("easyai serve: a hub that accepts and never answers fails in one line after the start deadline", () =>
    Effect.gen(function*() {
      // Accepts the connection, reads the request, never answers: what a dead network path looks like.
      const hub = yield* loopbackServer(() => undefined)
      const { exitCode, seconds, stderr, stdout } = yield* easyai(hub.base, "serve", "--model", "hf:someone/some-repo/model.gguf", "--port", "0")
      expect(exitCode).toBe(1)
      expect(stdout).toBe("")
      expect(lines(stderr)).toEqual([`easyai serve: cannot load hf:someone/some-repo/model.gguf: ${offline}`])
      expect(seconds).toBeLessThan(45)
      // The request went to the loopback hub, and only there.
      expect(hub.hits.some((hit) => hit.startsWith("/someone/some-repo/resolve/main/model.gguf"))).toBe(true)
    }), { timeout: 90_000 })

  it.scopedLive("easyai chat -p: a refused connection (retried by the downloader) fails the same way, nothing on stdout", () =>
    Effect.gen(function*() {
      // A port that was free a moment ago: nothing listens there now, so connections are refused.
      const closed = yield* Effect.scoped(Effect.map(loopbackServer(), (server) => server.base))
      const { exitCode, seconds, stderr, stdout } = yield* easyai(closed, "-p", "hi", "--model", `${closed}/model.gguf`)
      expect(exitCode).toBe(1)
      // No progress spinner or bar in a pipe: stdout carries only answers.
      expect(stdout).toBe("")
      expect(lines(stderr)).toEqual([`easyai: cannot load ${closed}/model.gguf: ${offline}`])
      expect(seconds).toBeLessThan(45)
    }), { timeout: 90_000 })

  it.scopedLive("a hub that answers 404 fails with what the server said, not the deadline", () =>
    Effect.gen(function*() {
      const hub = yield* loopbackServer()
      const { exitCode, stderr, stdout } = yield* easyai(hub.base, "serve", "--model", "hf:someone/some-repo/model.gguf", "--port", "0")
      expect(exitCode).toBe(1)
      expect(stdout).toBe("")
      const said = lines(stderr)
      expect(said).toHaveLength(1)
      expect(said[0]).toMatch(
        /^easyai serve: cannot load hf:someone\/some-repo\/model\.gguf: the model could not be downloaded \(.*404.*\); pass the path of a local GGUF file instead$/
      )
      expect(hub.hits.length).toBeGreaterThan(0)
    }), { timeout: 90_000 })
})

describe("a model that downloads", () => {
  const model = tinyGgufBytes()
  const half = Math.floor(model.length / 2)

  /** Serves the model: half of it at once, the rest once `release` is done. */
  const servingModel = (release: Deferred.Deferred<void>, runtime: Runtime.Runtime<never>) =>
    (req: IncomingMessage, res: ServerResponse) => {
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(model.length) })
      if (req.method === "HEAD") return void res.end()
      res.write(model.subarray(0, half))
      Runtime.runFork(runtime)(Effect.andThen(Deferred.await(release), Effect.sync(() => res.end(model.subarray(half)))))
    }

  it.scopedLive("shows its progress on a terminal, then the chat starts on it", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      const server = yield* loopbackServer(servingModel(release, yield* Effect.runtime<never>()))
      const url = `${server.base}/tiny-download.gguf`
      const terminal = yield* onTerminal(["--model", url, "--threads", "1", "--no-tools", "--no-local-session"], tempDir(), {
        HOME: tempDir()
      })
      // Half the file is there, and the terminal says so while the rest is held back.
      yield* terminal.waitFor(/downloading the model 50% · 0\.\d of 0\.\d MB/)
      yield* Deferred.succeed(release, undefined)
      yield* terminal.waitFor(/easyai · easyai-tiny-test \(local, ctx 4096\)/)
      yield* terminal.type("\x04")
      expect(yield* terminal.exited).toBe(0)
    }), { timeout: 90_000 })

  it.scopedLive("shows no progress in a pipe", () =>
    Effect.gen(function*() {
      const release = yield* Deferred.make<void>()
      yield* Deferred.succeed(release, undefined)
      const server = yield* loopbackServer(servingModel(release, yield* Effect.runtime<never>()))
      const { exitCode, stderr } = yield* runTsEnv(
        { HOME: tempDir() },
        undefined,
        "src/programs/cli/main.ts",
        "-p",
        "Once upon a time",
        "--model",
        `${server.base}/tiny-download.gguf`,
        "--threads",
        "1",
        "--no-tools",
        "--no-local-session",
        "--max-tokens",
        "2"
      )
      expect(exitCode).toBe(0)
      expect(stderr).not.toContain("downloading")
      expect(server.hits.length).toBeGreaterThan(0)
    }), { timeout: 90_000 })
})
