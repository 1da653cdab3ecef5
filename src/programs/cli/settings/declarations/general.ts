/**
 * General settings: the settings file, logging.
 *
 * @module
 */
import * as C from "../codec.js"
import { declare } from "../Setting.js"
import { agents, all, url } from "./common.js"

/** The general settings, by id, in the order `--help` and the docs list them. */
export const generalSettings = {
  config: declare("config", {
    codec: C.file,
    doc: "The settings file; flags win over it, it wins over the environment.",
    defaultText: "./easyai.ini when it exists",
    topic: "general",
    programs: all,
    ini: false,
    env: "EASYAI_CONFIG"
  }),
  verbose: declare("verbose", {
    codec: C.boolean,
    doc: "Debug log lines on stderr, and a failure's full cause.",
    topic: "general",
    programs: agents,
    aliases: ["-v"],
    default: false
  }),
  logFile: declare("logFile", {
    codec: C.anyPath,
    doc: "Append every log line, debug lines included, to this file.",
    topic: "general",
    programs: agents
  }),
  // Observability: spans to a file and to an OTLP collector
  traceFile: declare("traceFile", {
    codec: C.anyPath,
    doc: "Append every span (each model turn with its events, tool calls, approvals…) to this file as JSON lines; easyai replay reads it.",
    topic: "general",
    programs: agents,
    env: "EASYAI_TRACE_FILE"
  }),
  otlp: declare("otlp", {
    codec: url,
    doc: "Export spans and metrics over OTLP/HTTP (JSON) to this collector: URL/v1/traces and URL/v1/metrics.",
    topic: "general",
    programs: agents,
    env: "EASYAI_OTLP"
  })
}
