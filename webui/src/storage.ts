/**
 * Conversations, the API key and the preset in the browser's localStorage.
 * A browser that refuses storage (privacy mode, a sandboxed frame, a full
 * quota) costs persistence, never the page.
 */
import { defaultPreset, isPresetName } from "./presets.js"
import { parseStore, serializeStore } from "./storeCodec.js"
import type { PresetName, Store } from "./types.js"

export const conversationsKey = "easyai.conversations.v1"
const apiKeyKey = "easyai.apiKey"
const presetKey = "easyai.preset"

const read = (key: string): string | null => {
  try {
    return window.localStorage.getItem(key)
  } catch {
    return null // storage disabled (privacy mode, sandboxed frame)
  }
}

const write = (key: string, value: string | null): boolean => {
  try {
    if (value === null) window.localStorage.removeItem(key)
    else window.localStorage.setItem(key, value)
    return true
  } catch {
    return false // quota exceeded or storage disabled: keep working in memory
  }
}

export const loadStore = (): Store => parseStore(read(conversationsKey))

/** False when the browser refused (quota, disabled storage). */
export const saveStore = (store: Store): boolean => write(conversationsKey, serializeStore(store))

export const loadApiKey = (): string | null => {
  const key = read(apiKeyKey)
  return key === null || key.trim() === "" ? null : key
}

export const saveApiKey = (key: string | null): void => {
  write(apiKeyKey, key)
}

export const loadPreset = (): PresetName => {
  const stored = read(presetKey)
  return isPresetName(stored) ? stored : defaultPreset
}

export const savePreset = (preset: PresetName): void => {
  write(presetKey, preset)
}
