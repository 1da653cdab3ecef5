/**
 * Every setting of every program, declared once. Adding a setting is one
 * entry in its topic's file under `declarations/` plus the code that uses it
 * (in `stack.ts` or the program): its flag, INI key, environment variable,
 * `--help` line, `easyai config` row and docs row follow from the entry.
 *
 * @module
 */
import { generalSettings } from "./declarations/general.js"
import { localModelSettings } from "./declarations/localModel.js"
import { samplingSettings } from "./declarations/sampling.js"
import { systemPromptSettings } from "./declarations/systemPrompt.js"
import { toolSettings } from "./declarations/tools.js"
import { chatSettings } from "./declarations/chat.js"
import { remoteSettings } from "./declarations/remote.js"
import { serverSettings } from "./declarations/server.js"

/** The declarations, by id, topic after topic. */
export const settings = {
  ...generalSettings,
  ...localModelSettings,
  ...samplingSettings,
  ...systemPromptSettings,
  ...toolSettings,
  ...chatSettings,
  ...remoteSettings,
  ...serverSettings
}
