/**
 * Where a model comes from: a local GGUF path, or a URI node-llama-cpp can
 * download (`hf:<user>/<repo>/<file>.gguf`, `hf:<user>/<repo>:<quant>`, an
 * `https://` URL). Downloads go to node-llama-cpp's models directory
 * (`~/.node-llama-cpp/models`), once: a later start finds the file there
 * without touching the network.
 *
 * A download that does not start — no connection, or a server that never
 * answers, as on a machine that is offline — fails after a bounded time
 * instead of waiting forever: node-llama-cpp's downloader retries a
 * refused connection for a long time and has no timeout of its own.
 *
 * @module
 */
import { Deferred, Duration, Effect, Exit, Option } from "effect"
import { resolveModelFile } from "node-llama-cpp"
import { defaultDownloadStartTimeout, type EngineConfig } from "../../domain/EngineConfig.js"
import { ModelLoadError } from "../../domain/errors.js"
import { errorText } from "../../domain/errorText.js"

/** Whether `spec` names a model to download rather than a local file. */
export const isModelUri = (spec: string): boolean => {
  const lower = spec.trim().toLowerCase()
  return lower.startsWith("hf:") || lower.startsWith("huggingface:") || lower.startsWith("https://") || lower.startsWith("http://")
}

/** How a URI is resolved: the download's start deadline and who is told of its progress. */
export type ResolveOptions = Pick<EngineConfig, "downloadStartTimeout" | "onDownloadProgress">


const instead = "pass the path of a local GGUF file instead"

/** The file when a previous run downloaded it: node-llama-cpp looks in its models directory only. */
const downloaded = (uri: string) =>
  Effect.option(Effect.tryPromise(() => resolveModelFile(uri, { download: false, cli: false })))

/** Downloads `uri`; fails when it has not started (connected and been answered) within the deadline. */
const download = (uri: string, options: ResolveOptions) =>
  Effect.gen(function*() {
    const started = yield* Deferred.make<void>()
    const limit = Duration.decode(options.downloadStartTimeout ?? defaultDownloadStartTimeout)
    const fetching = Effect.tryPromise({
      try: (signal) =>
        resolveModelFile(uri, {
          signal,
          // node-llama-cpp's own progress bar writes to stdout, which carries answers and protocols: never shown.
          cli: false,
          onProgress: ({ downloadedSize, totalSize }) => {
            // A size or a byte means the server answered; an all-zero report comes before a failure too.
            if (totalSize > 0 || downloadedSize > 0) Deferred.unsafeDone(started, Exit.void)
            options.onDownloadProgress?.({ downloadedBytes: downloadedSize, totalBytes: totalSize })
          }
        }),
      catch: (error) =>
        new ModelLoadError({ path: uri, reason: "DownloadFailed", detail: `the model could not be downloaded (${errorText(error)}); ${instead}` })
    })
    const deadline = Deferred.await(started).pipe(
      Effect.timeoutFail({
        duration: limit,
        onTimeout: () =>
          new ModelLoadError({
            path: uri,
            reason: "DownloadFailed",
            detail: `the download did not start within ${Duration.format(limit)} (no answer from the server): this machine may be offline; ${instead}`
          })
      }),
      Effect.zipRight(Effect.never)
    )
    // Whichever ends first: the download (done or failed), or the deadline before it started.
    return yield* Effect.raceFirst(fetching, deadline)
  })

/** The local path of the model `spec` names, downloading it first when it is a URI not downloaded yet. */
export const resolveModelPath = (spec: string, options: ResolveOptions = {}): Effect.Effect<string, ModelLoadError> =>
  isModelUri(spec)
    ? Effect.flatMap(downloaded(spec.trim()), Option.match({ onSome: Effect.succeed, onNone: () => download(spec.trim(), options) }))
    : Effect.succeed(spec)
