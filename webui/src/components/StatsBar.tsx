/** Context fill and last speed, above the composer. */
import type { ContextFill } from "../format.js"

export const StatsBar = ({ fill, speed }: { readonly fill: ContextFill; readonly speed: string }) => {
  const percent = fill.fraction === null ? 0 : Math.round(fill.fraction * 1000) / 10
  const level = fill.fraction === null ? "" : fill.fraction >= 0.9 ? " full" : fill.fraction >= 0.7 ? " high" : ""
  return (
    <div class="stats">
      <span class="ctx-text" data-testid="context-bar">{fill.text}</span>
      <span
        class={`ctx-track${level}`}
        role="progressbar"
        aria-label="Context used"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={fill.fraction === null ? undefined : percent}
      >
        <span class="ctx-fill" style={{ width: `${percent}%` }} />
      </span>
      <span class="speed" data-testid="speed">{speed}</span>
    </div>
  )
}
