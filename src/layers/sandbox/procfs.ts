/**
 * The processes `/proc` lists, for the two places that must find a call's
 * processes without a handle on them: the namespace signal and the
 * fallback's tag sweep.
 *
 * @module
 */
import { readdirSync } from "node:fs"

/** Every process id `/proc` lists now; none on a system without it. */
export const processIds = (): ReadonlyArray<number> => {
  let names: ReadonlyArray<string>
  try {
    names = readdirSync("/proc")
  } catch {
    return []
  }
  return names.map(Number).filter((pid) => Number.isInteger(pid))
}
