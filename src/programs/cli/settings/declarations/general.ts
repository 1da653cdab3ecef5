/**
 * General settings: the settings file, logging.
 *
 * @module
 */
import * as C from "../codec.js"
import { declare } from "../Setting.js"
import { agents, all } from "./common.js"

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
  })
}
