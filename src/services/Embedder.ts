/**
 * The `Embedder` service: texts in, vectors out, for retrieval and
 * similarity. `LocalChatModel.layerFrom` provides one on the loaded model,
 * `RemoteChatModel.layerFrom` one on the server's `/v1/embeddings`.
 *
 * @module
 */
import { Context, type Effect } from "effect"
import type { ModelError } from "../domain/errors.js"

/** The vectors of some texts, in their order, and what reading them cost. */
export interface Embeddings {
  readonly vectors: ReadonlyArray<ReadonlyArray<number>>
  /** The tokens the texts took, as the model counts them (0 when a server does not say). */
  readonly tokens: number
}

/** The embedder's operation. */
export interface Service {
  /** One vector per text, in order. A text longer than the model can read fails with `InvalidRequest`. */
  readonly embed: (texts: ReadonlyArray<string>) => Effect.Effect<Embeddings, ModelError>
}

/** Turns texts into vectors. */
export class Embedder extends Context.Tag("easyai/Embedder")<Embedder, Service>() {}
