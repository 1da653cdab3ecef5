/**
 * A bound on JSON nesting, checked on the raw text before anything is built
 * from it: a 100 000-deep array then costs one linear scan, not a deep
 * object graph and a recursive decoder walking it.
 *
 * @module
 */

/** The deepest nesting accepted from the network. */
export const maxJsonDepth = 256

/**
 * The deepest nesting of `[`/`{` in a JSON text, stopping as soon as it
 * exceeds `limit`. Brackets inside strings do not count. The scan does not
 * validate the JSON: `JSON.parse` does that afterwards.
 */
export const nestingExceeds = (text: string, limit: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (inString) {
      if (code === 0x5c) i++ // backslash: skip the escaped character
      else if (code === 0x22) inString = false
    } else if (code === 0x22) {
      inString = true
    } else if (code === 0x5b || code === 0x7b) {
      if (++depth > limit) return true
    } else if (code === 0x5d || code === 0x7d) {
      depth--
    }
  }
  return false
}
