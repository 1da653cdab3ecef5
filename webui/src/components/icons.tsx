/** Inline SVG icons (no external resources under the page's CSP). */
import type { JSX } from "preact"

const Svg = ({ children, size = 18 }: { readonly children: JSX.Element | ReadonlyArray<JSX.Element>; readonly size?: number }) => (
  <svg
    width={size}
    height={size}
    viewBox="0 0 24 24"
    fill="none"
    stroke="currentColor"
    stroke-width="2"
    stroke-linecap="round"
    stroke-linejoin="round"
    aria-hidden="true"
    focusable="false"
  >
    {children}
  </svg>
)

export const MenuIcon = () => (
  <Svg>
    <path d="M4 6h16" />
    <path d="M4 12h16" />
    <path d="M4 18h16" />
  </Svg>
)

export const PlusIcon = () => (
  <Svg>
    <path d="M12 5v14" />
    <path d="M5 12h14" />
  </Svg>
)

export const SendIcon = () => (
  <Svg>
    <path d="M12 19V5" />
    <path d="m5 12 7-7 7 7" />
  </Svg>
)

export const StopIcon = () => (
  <svg width="14" height="14" viewBox="0 0 14 14" aria-hidden="true" focusable="false">
    <rect x="1" y="1" width="12" height="12" rx="2.5" fill="currentColor" />
  </svg>
)

export const TrashIcon = () => (
  <Svg size={16}>
    <path d="M3 6h18" />
    <path d="M8 6V4h8v2" />
    <path d="M19 6l-1 14H6L5 6" />
  </Svg>
)

export const KeyIcon = () => (
  <Svg size={16}>
    <circle cx="7.5" cy="15.5" r="4.5" />
    <path d="m10.7 12.3 9.3-9.3" />
    <path d="m16 7 3 3" />
  </Svg>
)

export const CopyIcon = () => (
  <Svg size={15}>
    <rect x="9" y="9" width="12" height="12" rx="2" />
    <path d="M5 15H4a1 1 0 0 1-1-1V4a1 1 0 0 1 1-1h10a1 1 0 0 1 1 1v1" />
  </Svg>
)

export const RetryIcon = () => (
  <Svg size={15}>
    <path d="M3 12a9 9 0 1 0 3-6.7L3 8" />
    <path d="M3 3v5h5" />
  </Svg>
)

export const ArrowDownIcon = () => (
  <Svg size={16}>
    <path d="M12 5v14" />
    <path d="m19 12-7 7-7-7" />
  </Svg>
)

export const CloseIcon = () => (
  <Svg>
    <path d="M18 6 6 18" />
    <path d="m6 6 12 12" />
  </Svg>
)
