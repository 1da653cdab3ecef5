/**
 * The search engines the web tools know, by name.
 *
 * @module
 */
import type { SearchEngine } from "./engine.js"
import { bing } from "./engines/bing.js"
import { brave } from "./engines/brave.js"
import { ddg, ddgLite } from "./engines/duckduckgo.js"
import { google } from "./engines/google.js"
import type { EngineName } from "./options.js"

/** Every engine, by name. */
export const searchEngines: Readonly<Record<EngineName, SearchEngine>> = {
  google,
  brave,
  "ddg-lite": ddgLite,
  bing,
  ddg
}
