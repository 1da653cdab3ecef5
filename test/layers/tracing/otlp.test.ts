/**
 * OTLP/HTTP export: a receiver on loopback gets the spans of a turn, with
 * their GenAI attributes, when the tracing layer closes — from the library
 * and from the real `easyai` command with `--otlp`.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Session, SessionStack, Tracing } from "easyai"
import { ScriptedChatModel as Scripted } from "easyai/testing"
import { isObject, parseJson } from "../../../src/domain/json.js"
import { loopbackServer } from "../../support/loopbackServer.js"
import { engineConfig, testModels } from "../../support/models.js"
import { runCli } from "../../support/process.js"
import { tempDir } from "../../support/tempDir.js"
import { pick } from "../../support/traced.js"

/** A collector on 127.0.0.1 that keeps the body of every POST, by path. */
const receiver = Effect.suspend(() => {
  const bodies: Array<{ readonly path: string; readonly body: string }> = []
  return Effect.map(
    loopbackServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => {
        bodies.push({ path: req.url ?? "/", body: Buffer.concat(chunks).toString("utf8") })
        res.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
    }),
    (server) => ({ server, bodies })
  )
})

interface ExportedSpan {
  readonly name: string
  readonly attributes: ReadonlyArray<{ readonly key: string; readonly value: Readonly<Record<string, unknown>> }>
}

/** The spans of every `/v1/traces` body, flattened. */
const exportedSpans = (bodies: ReadonlyArray<{ readonly path: string; readonly body: string }>): ReadonlyArray<ExportedSpan> =>
  bodies.filter((entry) => entry.path === "/v1/traces").flatMap((entry) => {
    const json = parseJson(entry.body)
    const resources = json._tag === "Right" && isObject(json.right) && Array.isArray(json.right["resourceSpans"]) ? json.right["resourceSpans"] : []
    // boundary: the OTLP JSON body, whose shape the assertions below check
    return (resources as ReadonlyArray<{ scopeSpans: ReadonlyArray<{ spans: ReadonlyArray<ExportedSpan> }> }>)
      .flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans))
  })

const attribute = (span: ExportedSpan | undefined, key: string) => span?.attributes.find((entry) => entry.key === key)?.value

describe("OTLP/HTTP export", () => {
  it.live("a loopback receiver gets the spans of a tool-calling turn", () =>
    Effect.gen(function*() {
      const { bodies, server } = yield* receiver
      yield* Effect.flatMap(Session, (s) => s.chat("Pick a color")).pipe(
        Effect.provide(SessionStack.layer({
          model: Scripted.layer([[...Scripted.toolCall("pick", { color: "red" }), Scripted.usage(20, 4)], Scripted.reply("Red.")]),
          session: { withDefaultTools: false, tools: [pick] }
        })),
        Effect.provide(Tracing.layer({ otlp: server.base }).pipe(Layer.provide(NodeHttpClient.layer)))
      )
      const spans = exportedSpans(bodies)
      const names = spans.map((span) => span.name)
      for (const name of ["Session.turn", "Agent.run", "Agent.hop", "ChatModel.stream", "Approval.check", "ToolRegistry.call"]) {
        expect(names).toContain(name)
      }
      const call = spans.find((span) => span.name === "ToolRegistry.call")
      expect(attribute(call, "gen_ai.tool.name")).toEqual({ stringValue: "pick" })
      expect(attribute(call, "gen_ai.operation.name")).toEqual({ stringValue: "execute_tool" })
      const metrics = bodies.filter((entry) => entry.path === "/v1/metrics").map((entry) => entry.body).join("\n")
      expect(metrics).toContain("gen_ai.client.token.usage")
      expect(metrics).toContain("gen_ai.client.operation.duration")
    }).pipe(Effect.scoped))

  const model = testModels.find((candidate) => candidate.name === "stories260K.gguf") ?? testModels[0]!
  it.live(`easyai -p --otlp exports the turn on ${model.name}`, () =>
    Effect.gen(function*() {
      const { bodies, server } = yield* receiver
      const result = yield* runCli(
        { cwd: tempDir() },
        "-p", "Once upon a time", "--model", engineConfig(model).modelPath, "--ctx", "2048", "--threads", "1",
        "--max-tokens", "8", "--no-tools", "--otlp", server.base
      )
      expect(result.exitCode, result.stderr).toBe(0)
      const names = exportedSpans(bodies).map((span) => span.name)
      expect(names).toContain("Session.turn")
      expect(names).toContain("ChatModel.stream")
      expect(names).toContain("Engine.stream")
    }).pipe(Effect.scoped), 120_000)
})
