/** The page configuration the server injects into `<script id="easyai-config">`. */
import { isRecord, parseJson } from "./json.js"

export interface PageConfig {
  readonly title: string
  readonly placeholder: string
}

export const fallbackConfig: PageConfig = { title: "easyai", placeholder: "Message easyai…" }

const text = (value: unknown, otherwise: string): string =>
  typeof value === "string" && value.trim() !== "" ? value : otherwise

export const readConfig = (): PageConfig => {
  const json = parseJson(document.getElementById("easyai-config")?.textContent ?? "{}")
  if (!isRecord(json)) return fallbackConfig
  return { title: text(json["title"], fallbackConfig.title), placeholder: text(json["placeholder"], fallbackConfig.placeholder) }
}
