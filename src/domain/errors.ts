/**
 * Tagged errors: every failure a caller can act on, matchable with
 * `Effect.catchTag`. What a *model* must read (a tool failing) is not here:
 * that is data, a `ToolResult` with `isError: true`.
 *
 * @module
 */
import { Schema } from "effect"

/**
 * A model turn could not be produced or read. `InvalidRequest`: the request
 * itself cannot be served (e.g. a forced tool its tools do not hold, a tool
 * schema no grammar can be built from); sending it again will not help.
 */
export class ModelError extends Schema.TaggedError<ModelError>()("ModelError", {
  reason: Schema.Literal("Transport", "RateLimited", "BadResponse", "Unavailable", "InvalidRequest"),
  detail: Schema.optional(Schema.String),
  /** With `InvalidRequest`: the part of the request at fault, e.g. `tools` or `responseFormat`. */
  field: Schema.optional(Schema.Literal("tools", "responseFormat")),
  cause: Schema.optional(Schema.Defect)
}) {
  override get message(): string {
    return this.detail === undefined ? this.reason : `${this.reason}: ${this.detail}`
  }
  /** Whether trying the same request again may succeed. */
  get isRetryable(): boolean {
    return this.reason === "Transport" || this.reason === "RateLimited"
  }
}

/** The prompt does not fit the model's context window. */
export class ContextOverflow extends Schema.TaggedError<ContextOverflow>()("ContextOverflow", {
  promptTokens: Schema.Number,
  contextSize: Schema.Number
}) {
  override get message(): string {
    return `the prompt needs ${this.promptTokens} tokens but the context holds ${this.contextSize}`
  }
}

/**
 * A local model could not be loaded, or its configuration cannot be
 * honoured. `DownloadFailed`: a model named by a URI could not be fetched
 * (not there, or no answer in time).
 */
export class ModelLoadError extends Schema.TaggedError<ModelLoadError>()("ModelLoadError", {
  path: Schema.String,
  reason: Schema.Literal("NotFound", "NotGguf", "UnsupportedArchitecture", "OutOfMemory", "Unsupported", "Failed", "DownloadFailed"),
  detail: Schema.String
}) {
  override get message(): string {
    return `cannot load ${this.path}: ${this.detail}`
  }
}

/** Everything a `ChatModel` stream can fail with, as one Schema (to decode, encode or match it). */
export const ChatModelError = Schema.Union(ModelError, ContextOverflow)
/** Everything a `ChatModel` stream can fail with. */
export type ChatModelError = typeof ChatModelError.Type

/** Whether `value` is an error a `ChatModel` stream fails with (`ModelError` or `ContextOverflow`). */
export const isChatModelError: (value: unknown) => value is ChatModelError = Schema.is(ChatModelError)

/**
 * The agent used its whole tool-hop budget without the model giving a final
 * answer. Carries the partial answer, so a caller that turns the signal into
 * a failure loses nothing.
 */
export class HopLimitReached extends Schema.TaggedError<HopLimitReached>()("HopLimitReached", {
  hops: Schema.Number,
  partial: Schema.String
}) {
  override get message(): string {
    return `the model was still calling tools after ${this.hops} hops`
  }
}

/**
 * The answer asked for in a shape (`output`) is not JSON of that shape: the
 * model (a remote one that ignored `response_format`, or a grammar cut short
 * by the token budget) wrote something else. `text` is what it wrote.
 */
export class OutputDecodeError extends Schema.TaggedError<OutputDecodeError>()("OutputDecodeError", {
  text: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `the answer is not of the shape asked for: ${this.reason}`
  }
}

/** A tool could not be registered. */
export class ToolRegistrationError extends Schema.TaggedError<ToolRegistrationError>()("ToolRegistrationError", {
  name: Schema.String,
  reason: Schema.Literal("InvalidName", "Duplicate", "Remote")
}) {
  override get message(): string {
    return this.reason === "Duplicate"
      ? `a tool named "${this.name}" is already registered`
      : this.reason === "Remote"
      ? `"${this.name}" cannot be added to a remote session: its tools are the server's; register it there`
      : `"${this.name}" is not a valid tool name: use 1 to 64 letters, digits, "_" or "-"`
  }
}

/**
 * A tool handler's own failure. Its message is what the model reads, so
 * write it to teach: say what went wrong and show the correct call.
 */
export class ToolFailure extends Schema.TaggedError<ToolFailure>()("ToolFailure", {
  message: Schema.String
}) {}

/**
 * A path the model gave would leave the sandbox (or cannot be a path at all).
 * Tools turn it into an error result that says which paths are allowed.
 */
export class SandboxViolation extends Schema.TaggedError<SandboxViolation>()("SandboxViolation", {
  path: Schema.String,
  reason: Schema.Literal("Escape", "SymlinkEscape", "NulByte", "Empty")
}) {
  override get message(): string {
    switch (this.reason) {
      case "NulByte":
        return `path ${JSON.stringify(this.path)} contains a NUL byte`
      case "Empty":
        return "the path is empty"
      case "SymlinkEscape":
        return `path ${JSON.stringify(this.path)} leads through a symbolic link outside the sandbox`
      case "Escape":
        return `path ${JSON.stringify(this.path)} climbs above the sandbox root "/"`
    }
  }
}

/** A file operation inside the sandbox failed. `path` is the model's (virtual) path. */
export class FileError extends Schema.TaggedError<FileError>()("FileError", {
  path: Schema.String,
  reason: Schema.Literal(
    "NotFound",
    "NotAFile",
    "NotRegular",
    "NotADirectory",
    "AlreadyExists",
    "TooLarge",
    "PermissionDenied",
    "Io"
  ),
  detail: Schema.optional(Schema.String)
}) {
  override get message(): string {
    const what: Record<typeof this.reason, string> = {
      NotFound: "no such file or directory",
      NotAFile: "is a directory, not a file",
      NotRegular: "is not a regular file",
      NotADirectory: "is not a directory",
      AlreadyExists: "already exists",
      TooLarge: "is too large",
      PermissionDenied: "permission denied",
      Io: "cannot be accessed"
    }
    return `${this.path}: ${what[this.reason]}${this.detail === undefined ? "" : ` (${this.detail})`}`
  }
}

/** A process could not be started. */
export class ProcessError extends Schema.TaggedError<ProcessError>()("ProcessError", {
  command: Schema.String,
  detail: Schema.String
}) {
  override get message(): string {
    return `cannot run ${this.command}: ${this.detail}`
  }
}

/** A façade or session was configured in a way that cannot work. */
export class ConfigurationError extends Schema.TaggedError<ConfigurationError>()("ConfigurationError", {
  message: Schema.String
}) {}

/** The sandbox cannot start as configured: isolation asked for but unavailable, or a refused tool variable. */
export class SandboxSetupError extends Schema.TaggedError<SandboxSetupError>()("SandboxSetupError", {
  reason: Schema.Literal("IsolationUnavailable", "ToolEnvRefused"),
  detail: Schema.String
}) {
  override get message(): string {
    return this.reason === "IsolationUnavailable"
      ? `isolation is required (isolate: on) but no mechanism works here: ${this.detail}`
      : `tool environment: ${this.detail}`
  }
}

/**
 * A tools manifest (an `EASYAI-*.tools` file, a skill's `tools.json`) that
 * cannot be used: every problem found at once, one line each, each naming
 * the file (and the tool and field) so an operator can act on it.
 */
export class ManifestError extends Schema.TaggedError<ManifestError>()("ManifestError", {
  file: Schema.String,
  /** At least one; each a whole sentence that names where the problem is. */
  problems: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return this.problems.join("\n")
  }
}

/** A skill's `SKILL.md` that cannot be used: every problem found, one line each, naming the file. */
export class SkillError extends Schema.TaggedError<SkillError>()("SkillError", {
  file: Schema.String,
  /** At least one; each a whole sentence that names where the problem is. */
  problems: Schema.Array(Schema.String)
}) {
  override get message(): string {
    return this.problems.join("\n")
  }
}
