/**
 * The operations of the fs tool family, and how each surface names them:
 * `fs_read` on the split surface, `fs(action="read")` on the unified one.
 * Descriptions and error hints are written once against a {@link Naming}
 * so each surface teaches the calls it actually offers.
 *
 * @module
 */

/** Every single-file-system operation, in the order the manuals list them. */
export const fsActions = ["read", "write", "edit", "list", "glob", "grep", "check_path", "cwd", "sandbox"] as const

/** One fs operation. */
export type FsAction = typeof fsActions[number]

/** How one surface refers to an operation and writes an example call. */
export interface Naming {
  readonly surface: "split" | "unified"
  /** The call, as the model would write it: `fs_read` or `fs(action="read")`. */
  readonly call: (action: FsAction) => string
  /** An example argument object for `action` on this surface. */
  readonly example: (action: FsAction, args: Readonly<Record<string, unknown>>) => Readonly<Record<string, unknown>>
}

/** One focused tool per operation: `fs_read`, `fs_write`, … */
export const splitNaming: Naming = {
  surface: "split",
  call: (action) => `fs_${action}`,
  example: (_action, args) => args
}

/** One `fs` tool that dispatches on `action`. */
export const unifiedNaming: Naming = {
  surface: "unified",
  call: (action) => `fs(action="${action}")`,
  example: (action, args) => ({ action, ...args })
}
