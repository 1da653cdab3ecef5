/**
 * Where the command's log lines go. Always stderr, never stdout: stdout
 * carries answers and, under `easyai mcp --stdio`, the protocol itself.
 * `--verbose` adds the debug lines (one per model turn with its token
 * accounting, …); `--log-file` appends every line, debug included, to a
 * file as well.
 *
 * @module
 */
import { PlatformLogger } from "@effect/platform"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { Layer, Logger, LogLevel, Option } from "effect"

/** Log lines for a person, on stderr. */
export const stderrLogger = Logger.prettyLogger({ stderr: true })

/** How much is logged, and where. */
export interface LoggingOptions {
  /** Debug lines on stderr too. */
  readonly verbose: boolean
  /** A file every line is appended to (created when missing). */
  readonly logFile?: string
}

/** Replaces the command's stderr logger for `options`. */
export const logging = (options: LoggingOptions) => {
  // Both the default logger and the unfiltered `stderrLogger` the entry point installs in its place give way:
  // left in, the latter would print the debug lines that `--log-file` enables on stderr too.
  const stderr = Layer.merge(
    Logger.remove(Logger.defaultLogger),
    Logger.replace(
      stderrLogger,
      options.verbose ? stderrLogger : Logger.filterLogLevel(stderrLogger, LogLevel.greaterThanEqual(LogLevel.Info))
    )
  )
  const file = options.logFile === undefined
    ? Layer.empty
    : Logger.addScoped(PlatformLogger.toFile(Logger.logfmtLogger, options.logFile)).pipe(Layer.provide(NodeFileSystem.layer))
  const level = Logger.minimumLogLevel(options.verbose || options.logFile !== undefined ? LogLevel.Debug : LogLevel.Info)
  // A failure is reported once, in full, by the command; the runtime's own "fiber terminated" debug lines would repeat it.
  return Layer.mergeAll(stderr, file, level, Layer.setUnhandledErrorLogLevel(Option.none()))
}
