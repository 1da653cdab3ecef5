/**
 * `easyai serve` with `--verbose` and `--trace-file`: a request's turn is
 * traced by the server process, and its lines are on stderr.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { TraceReplay } from "easyai"
import { readFileSync } from "node:fs"
import * as path from "node:path"
import { startServeSmall } from "../support/programProcess.js"
import { tempDir } from "../support/tempDir.js"

describe("easyai serve --verbose --trace-file", () => {
  it.scopedLive("traces a chat completion's turn to the file and shows it on stderr", () =>
    Effect.gen(function*() {
      const file = path.join(tempDir(), "serve.jsonl")
      const server = yield* startServeSmall("--no-tools", "--system", "You tell stories.", "-v", "--trace-file", file)
      const reply = yield* Effect.tryPromise(() =>
        fetch(`${server.url}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ messages: [{ role: "user", content: "Once upon a time" }], max_tokens: 4 })
        }).then((response) => response.status)
      )
      expect(reply).toBe(200)
      // A read is not traced: only the request that ran the model has an http.server span.
      yield* Effect.tryPromise(() => fetch(`${server.url}/v1/models`).then((response) => response.text()))
      yield* server.lineMatching(/^\[model\] \d+ prompt tokens/)
      const records = Either.getOrThrow(TraceReplay.parseTrace(file, readFileSync(file, "utf8")))
      const names = records.map((record) => record.name)
      expect(names).toContain("ChatModel.stream")
      expect(names).toContain("Engine.stream")
      const turn = records.find((record) => record.name === "ChatModel.stream")
      expect(turn?.attributes["gen_ai.request.max_tokens"]).toBe(4)
      // The request's span is the root of its turn: every span of the trace descends from it.
      const requests = records.filter((record) => record.name.startsWith("http.server"))
      expect(requests.map((record) => record.name)).toEqual(["http.server POST"])
      const byId = new Map(records.map((record) => [record.spanId, record]))
      const rootOf = (record: (typeof records)[number]): string => {
        let current = record
        for (let depth = 0; depth < 64 && current.parentSpanId !== undefined; depth++) {
          const parent = byId.get(current.parentSpanId)
          if (parent === undefined) break
          current = parent
        }
        return current.name
      }
      expect(turn === undefined ? undefined : rootOf(turn)).toBe("http.server POST")
      expect(requests[0]?.attributes["url.path"]).toBe("/v1/chat/completions")
    }), { timeout: 120_000 })
})
