/**
 * A model download's progress, for a person watching: one line on stderr,
 * redrawn in place (`downloading the model 45% · 120.3 of 267.4 MB`) and
 * erased when the download is done. Only on a terminal: a pipe or a log
 * file gets no progress lines at all.
 *
 * @module
 */
import type { DownloadProgress } from "../../domain/EngineConfig.js"

const megabytes = (bytes: number): string => (bytes / 1_000_000).toFixed(1)

/** The progress line's text. */
export const progressLine = (progress: DownloadProgress): string =>
  progress.totalBytes > 0
    ? `downloading the model ${Math.floor((progress.downloadedBytes / progress.totalBytes) * 100)}% · ${megabytes(progress.downloadedBytes)} of ${
      megabytes(progress.totalBytes)
    } MB`
    : `downloading the model · ${megabytes(progress.downloadedBytes)} MB`

/** A progress callback drawing on `stream` when it is a terminal; none otherwise. */
export const downloadProgress = (
  stream: NodeJS.WriteStream = process.stderr
): ((progress: DownloadProgress) => void) | undefined => {
  if (stream.isTTY !== true) return undefined
  let shown = ""
  return (progress) => {
    const done = progress.totalBytes > 0 && progress.downloadedBytes >= progress.totalBytes
    const line = done ? "" : progressLine(progress)
    // Reports come far more often than the text changes: draw only a change.
    if (line === shown) return
    shown = line
    stream.write(`\r\u001b[2K${line}`)
  }
}

/** `{ onDownloadProgress }` for an engine configuration, when there is a terminal to draw on. */
export const progressOption = (): { readonly onDownloadProgress?: (progress: DownloadProgress) => void } => {
  const draw = downloadProgress()
  return draw === undefined ? {} : { onDownloadProgress: draw }
}
