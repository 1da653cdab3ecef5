/**
 * Where a model comes from: a local GGUF path, or a URI node-llama-cpp can
 * download (`hf:<user>/<repo>/<file>.gguf`, `hf:<user>/<repo>:<quant>`, an
 * `https://` URL). Downloads go to node-llama-cpp's models directory
 * (`~/.node-llama-cpp/models`) with a progress bar, once: a later start
 * finds the file there.
 *
 * @module
 */
import { Effect } from "effect"
import { resolveModelFile } from "node-llama-cpp"
import { ModelLoadError } from "../../domain/errors.js"

/** Whether `spec` names a model to download rather than a local file. */
export const isModelUri = (spec: string): boolean => {
  const lower = spec.trim().toLowerCase()
  return lower.startsWith("hf:") || lower.startsWith("huggingface:") || lower.startsWith("https://") || lower.startsWith("http://")
}

/** The local path of the model `spec` names, downloading it first when it is a URI. */
export const resolveModelPath = (spec: string): Effect.Effect<string, ModelLoadError> =>
  isModelUri(spec)
    ? Effect.tryPromise({
      try: (signal) => resolveModelFile(spec.trim(), { signal, cli: true }),
      catch: (error) =>
        new ModelLoadError({
          path: spec,
          reason: "NotFound",
          detail: `the model could not be downloaded: ${error instanceof Error ? error.message : String(error)}`
        })
    })
    : Effect.succeed(spec)
