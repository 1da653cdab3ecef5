/**
 * `POST /rpc`: the agent protocol (`AgentRpc`) over HTTP, newline-delimited
 * JSON, each request's events streamed back as they come. Mounted with the
 * other guarded routes (the API key), under the same body limits; each
 * turn takes a generation slot and counts in `/metrics` like a chat completion.
 *
 * @module
 */
import { FileSystem, type HttpApp, HttpServerRequest } from "@effect/platform"
import { RpcSerialization, RpcServer } from "@effect/rpc"
import { Effect, Layer, Option, type Scope } from "effect"
import type { AgentEvent } from "../../domain/AgentEvent.js"
import { AgentRpcs, AgentSessionError } from "../../domain/AgentRpc.js"
import { nestingExceeds } from "../../domain/jsonDepth.js"
import * as AgentRpcHandlers from "../../layers/remoteSession/AgentRpcHandlers.js"
import { AgentSessions as AgentSessionsTag } from "../../services/AgentSessions.js"
import type { Admission } from "./admission.js"
import { badRequest, payloadTooLarge, toResponse } from "./ApiError.js"
import type { BodyLimits } from "./jsonBody.js"
import type { ServerMetrics } from "./metrics.js"

/** A generation slot for the life of a turn; a full queue is a refusal the caller may retry. */
const admitTurn = (admission: Admission) =>
  Effect.catchTag(
    admission.enter,
    "ApiError",
    (error) => new AgentSessionError({ reason: "Overloaded", detail: `the server is busy: ${error.detail}` })
  )

/** A remote turn's tool calls and tokens count in `/metrics` as a chat completion's do. */
const counted = (metrics: ServerMetrics) => (event: AgentEvent): Effect.Effect<void> =>
  event._tag === "ToolCallFinished"
    ? metrics.toolCall
    : event._tag === "Usage"
    ? metrics.generation(event)
    : Effect.void

/**
 * The route's handler over the sessions in `sessions`. The body is read
 * once, under the limits, before the protocol reads it again (the read is
 * cached).
 */
export const make = (
  sessions: AgentSessionsTag["Type"],
  admission: Admission,
  metrics: ServerMetrics,
  limits: BodyLimits
): Effect.Effect<HttpApp.Default<never, Scope.Scope>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const handlers = AgentRpcHandlers.layer({ admit: admitTurn(admission), observe: counted(metrics) }).pipe(
      Layer.provide(Layer.succeed(AgentSessionsTag, sessions))
    )
    const app = yield* RpcServer.toHttpApp(AgentRpcs, { disableFatalDefects: true, disableTracing: true }).pipe(
      Effect.provide(Layer.merge(handlers, RpcSerialization.layerNdjson))
    )
    return Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const declared = Number(request.headers["content-length"] ?? Number.NaN)
      if (Number.isFinite(declared) && declared > limits.maxBytes) return toResponse(payloadTooLarge(limits.maxBytes))
      const text = yield* HttpServerRequest.withMaxBodySize(request.text, Option.some(FileSystem.Size(limits.maxBytes))).pipe(
        Effect.option
      )
      if (Option.isNone(text)) return toResponse(payloadTooLarge(limits.maxBytes))
      if (nestingExceeds(text.value, limits.maxDepth)) {
        return toResponse(badRequest(`the request body nests deeper than ${limits.maxDepth} levels`))
      }
      return yield* app
    })
  })
