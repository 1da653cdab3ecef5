/**
 * The `Client` service: an OpenAI-compatible server over HTTP. `chat` is one
 * assistant turn streamed as the same `ModelEvent`s a local engine emits, so
 * `RemoteChatModel` is a one-line adapter; the management calls script a
 * server (`/v1/models`, `/v1/tools`, `/health`, `/props`, `/metrics`,
 * `/v1/preset`).
 *
 * @module
 */
import { Context, type Effect, type Stream } from "effect"
import type { ChatModelError } from "../domain/errors.js"
import type { ClientError } from "../domain/httpErrors.js"
import type { ModelEvent } from "../domain/ModelEvent.js"
import type { PresetName } from "../domain/Sampling.js"
import type { JsonSchema } from "../domain/ToolCall.js"
import type { Embeddings } from "./Embedder.js"
import type { ChatRequest, ModelInfo } from "./ChatModel.js"

/** A model the server lists at `/v1/models`. */
export interface RemoteModel {
  readonly id: string
  /** `owned_by`, when the server says. */
  readonly ownedBy?: string
  /** `created`, in seconds since the epoch, when the server says. */
  readonly created?: number
}

/** A tool the server lists at `/v1/tools` (an easyai-server extension). */
export interface RemoteTool {
  readonly name: string
  readonly description: string
  /** The tool's JSON Schema parameters; `{}` when the server sent none. */
  readonly parameters: JsonSchema
}

/** What `/health` answered (any 2xx). */
export interface Health {
  /** The `status` field of the body, or `"ok"` when there is none. */
  readonly status: string
  /** The whole JSON body; empty when the body was not a JSON object. */
  readonly details: Readonly<Record<string, unknown>>
}

/** The remote server's operations. */
export interface Service {
  /** The configured model, for banners and logs. */
  readonly info: Effect.Effect<ModelInfo>
  /**
   * One assistant turn: `POST /v1/chat/completions` with `stream: true`. Text
   * and reasoning stream as they arrive; tool calls are emitted whole, in
   * index order, then usage, then `Finished`. Transient failures before the
   * response are retried; nothing is retried once it started. Interrupting
   * the stream aborts the request.
   */
  readonly chat: (request: ChatRequest) => Stream.Stream<ModelEvent, ChatModelError>
  /** `GET /v1/models`. */
  readonly models: Effect.Effect<ReadonlyArray<RemoteModel>, ClientError>
  /** `GET /v1/tools`: the tools the server itself offers. */
  readonly tools: Effect.Effect<ReadonlyArray<RemoteTool>, ClientError>
  /** `GET /health`; a status outside 2xx fails with `HttpStatusError`. */
  readonly health: Effect.Effect<Health, ClientError>
  /** `GET /props`: the server's configuration snapshot, as raw JSON. */
  readonly props: Effect.Effect<unknown, ClientError>
  /** `GET /metrics`: Prometheus text exposition. */
  readonly metrics: Effect.Effect<string, ClientError>
  /** `POST /v1/preset`: switches the server's default sampling preset. */
  readonly setPreset: (name: PresetName) => Effect.Effect<void, ClientError>
  /** `POST /v1/embeddings`: one vector per text, in order. */
  readonly embeddings: (texts: ReadonlyArray<string>) => Effect.Effect<Embeddings, ClientError>
}

/** A remote OpenAI-compatible server. */
export class Client extends Context.Tag("easyai/Client")<Client, Service>() {}
