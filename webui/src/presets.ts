/** Pure: the sampling presets the page offers (sent as the request's `preset` field). */
import { type PresetName, presetNames } from "./types.js"

export const defaultPreset: PresetName = "precise"

export const isPresetName = (value: unknown): value is PresetName =>
  typeof value === "string" && presetNames.some((name) => name === value)
