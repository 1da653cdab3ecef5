/**
 * `easyai serve` as a user runs it: a real process on the real engine,
 * found through its banner, stopped with SIGTERM.
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { engineConfig, testModels } from "../support/models.js"
import { runTs } from "../support/process.js"
import { startServe } from "../support/programProcess.js"
import { tempDir } from "../support/tempDir.js"
import { tinyGgufBytes } from "../support/tinyGguf.js"
import { writeFileSync } from "node:fs"
import * as path from "node:path"

const model = testModels[0]
if (model === undefined) throw new Error("no test model")
const modelPath = engineConfig(model).modelPath

/** Starts `easyai serve` on a free port; its output lines are queued as they come. */
const serve = (...extra: ReadonlyArray<string>) =>
  startServe("--model", modelPath, "--port", "0", "--threads", "1", "--ctx", "2048", "--no-tools", ...extra)

const get = (url: string) =>
  Effect.scoped(Effect.gen(function*() {
    const response = yield* (yield* HttpClient.HttpClient).get(url)
    return { status: response.status, body: yield* response.text }
  }))

const story = (url: string, maxTokens: number) =>
  HttpClientRequest.post(`${url}/v1/chat/completions`).pipe(
    HttpClientRequest.bodyUnsafeJson({
      messages: [{ role: "user", content: "Once upon a time" }],
      max_tokens: maxTokens,
      stream: true
    })
  )

describe("easyai serve (a real process)", () => {
  it.scoped("serves the model until SIGTERM, then exits cleanly", () =>
    Effect.gen(function*() {
      const { process, url } = yield* serve("--webui-title", "Box AI", "--webui-placeholder", "Ask the box")
      // The chat page, with the operator's title and placeholder.
      const page = yield* get(`${url}/`)
      expect(page.status).toBe(200)
      expect(page.body).toContain("<title>Box AI</title>")
      expect(page.body).toContain(`{"title":"Box AI","placeholder":"Ask the box"}`)
      const health = yield* get(`${url}/health`)
      expect(health.status).toBe(200)
      expect(JSON.parse(health.body)).toMatchObject({ status: "ok", model: "easyai-tiny", backend: "local" })
      const models = JSON.parse((yield* get(`${url}/v1/models`)).body)
      expect(models.data[0].id).toBe("easyai-tiny")
      // A second server on the same port says why it cannot start, in one line.
      const port = url.slice(url.lastIndexOf(":") + 1)
      const second = yield* runTs("src/programs/cli/main.ts", "serve", "--model", modelPath, "--port", port, "--no-tools")
      expect(second.exitCode).toBe(1)
      expect(second.stderr).toMatch(/^easyai serve: cannot listen: .*EADDRINUSE/)
      expect(second.stderr.split("\n").filter((line) => !line.startsWith("npm warn"))).toHaveLength(1)
      yield* process.kill("SIGTERM")
      expect(Number(yield* process.exitCode)).toBe(0)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)), { timeout: 120_000 })

  it.scoped("lets a running stream finish on SIGTERM before it exits", () =>
    Effect.gen(function*() {
      const { lineMatching, process, url } = yield* serve("--grace", "30")
      const client = yield* HttpClient.HttpClient
      const response = yield* client.execute(story(url, 1500))
      expect(response.status).toBe(200)
      yield* process.kill("SIGTERM")
      // The server saw the stream running when the signal came…
      yield* lineMatching(/shutdown: letting 1 running request\(s\) finish/)
      // …and the client still got the whole of it.
      const body = yield* response.stream.pipe(Stream.decodeText(), Stream.mkString)
      expect(body.trimEnd().endsWith("data: [DONE]")).toBe(true)
      expect(Number(yield* process.exitCode)).toBe(0)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)), { timeout: 120_000 })

  it.scoped("cuts streams still running when the grace period is over", () =>
    Effect.gen(function*() {
      const { lineMatching, process, url } = yield* serve("--grace", "0")
      const client = yield* HttpClient.HttpClient
      const response = yield* client.execute(story(url, 1500))
      expect(response.status).toBe(200)
      yield* process.kill("SIGTERM")
      yield* lineMatching(/shutdown: interrupting requests still running/)
      const body = yield* response.stream.pipe(Stream.decodeText(), Stream.mkString, Effect.orElseSucceed(() => ""))
      expect(body).not.toContain("[DONE]")
      expect(Number(yield* process.exitCode)).toBe(0)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)), { timeout: 120_000 })

  it.scoped("reads [SERVER] and [ENGINE] from easyai.ini; flags win over it", () =>
    Effect.gen(function*() {
      const file = path.join(tempDir(), "easyai.ini")
      writeFileSync(file, "[SERVER]\nalias = from-ini\nparallel = 2\nqueue = 3\n\n[ENGINE]\npreset = creative\n")
      const { process, url } = yield* serve("--config", file)
      const health = JSON.parse((yield* get(`${url}/health`)).body)
      expect(health.model).toBe("from-ini")
      expect(health.slots).toMatchObject({ total: 2, queue_limit: 3 })
      expect(JSON.parse((yield* get(`${url}/props`)).body).preset).toBe("creative")
      yield* process.kill("SIGTERM")
      const overridden = yield* serve("--config", file, "--alias", "from-flag")
      expect(JSON.parse((yield* get(`${overridden.url}/health`)).body).model).toBe("from-flag")
      yield* overridden.process.kill("SIGTERM")
      const bad = path.join(tempDir(), "easyai.ini")
      writeFileSync(bad, "[SERVER]\nport = ninety\n")
      const refused = yield* runTs("src/programs/cli/main.ts", "serve", "--model", modelPath, "--config", bad)
      expect(refused.exitCode).toBe(2)
      expect(refused.stderr).toBe(`easyai serve: ${bad}:2: [SERVER] port: expected a whole number from 0 to 65535, got "ninety"`)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)), { timeout: 120_000 })

  it.scoped("without --ctx, serves the model's whole training context, and says so in the banner and /props", () =>
    Effect.gen(function*() {
      // A training context above the old cap of 4096, small enough for any machine's memory.
      const long = path.join(tempDir(), "long-context.gguf")
      writeFileSync(long, tinyGgufBytes(7, "llama", { context: 16_384 }))
      const { banner, process, url } = yield* startServe("--model", long, "--port", "0", "--threads", "1", "--no-tools")
      expect(banner[1]).toBe("  model    long-context (local, ctx 16384)")
      expect(JSON.parse((yield* get(`${url}/props`)).body).n_ctx).toBe(16_384)
      yield* process.kill("SIGTERM")
      // --ctx still wins.
      const sized = yield* startServe("--model", long, "--port", "0", "--threads", "1", "--no-tools", "--ctx", "1024")
      expect(sized.banner[1]).toBe("  model    long-context (local, ctx 1024)")
      expect(JSON.parse((yield* get(`${sized.url}/props`)).body).n_ctx).toBe(1024)
      yield* sized.process.kill("SIGTERM")
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)), { timeout: 120_000 })

  it.live("refuses a model file that does not exist, in one line, with a failing exit code", () =>
    Effect.gen(function*() {
      const { exitCode, stderr, stdout } = yield* runTs("src/programs/cli/main.ts", "serve", "--model", "/nonexistent/model.gguf")
      expect(exitCode).toBe(1)
      expect(stdout).toBe("")
      expect(stderr).toBe("easyai serve: cannot load /nonexistent/model.gguf: no such file")
    }), { timeout: 60_000 })
})
