/** The top bar: drawer toggle (phone), brand, model, preset. */
import { isPresetName } from "../presets.js"
import { type PresetName, presetNames } from "../types.js"
import { MenuIcon } from "./icons.js"

export const Header = (props: {
  readonly title: string
  readonly model: string | null
  readonly offline: boolean
  readonly preset: PresetName
  readonly serverPreset: string | null
  readonly drawerOpen: boolean
  readonly onMenu: () => void
  readonly onPreset: (preset: PresetName) => void
}) => (
  <header class="header">
    <button
      type="button"
      class="icon-button menu"
      data-testid="menu"
      aria-label={props.drawerOpen ? "Close the conversation list" : "Open the conversation list"}
      aria-expanded={props.drawerOpen}
      aria-controls="sidebar"
      onClick={props.onMenu}
    >
      <MenuIcon />
    </button>
    <div class="brand">
      <span class="brand-title" data-testid="title">{props.title}</span>
      {props.model !== null && <span class="model" title={props.model}>{props.model}</span>}
      {props.offline && <span class="model offline">offline</span>}
    </div>
    <label class="preset">
      <span class="preset-label">Preset</span>
      <select
        data-testid="preset"
        aria-label="Sampling preset"
        title={props.serverPreset === null ? "Sampling preset" : `Sampling preset (server default: ${props.serverPreset})`}
        value={props.preset}
        onChange={(event) => {
          const value = event.currentTarget.value
          if (isPresetName(value)) props.onPreset(value)
        }}
      >
        {presetNames.map((name) => (
          <option key={name} value={name}>{name}</option>
        ))}
      </select>
    </label>
  </header>
)
