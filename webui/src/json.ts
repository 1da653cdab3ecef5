/** Narrowing helpers for JSON from the network and from localStorage. */

export type JsonRecord = Readonly<Record<string, unknown>>

export const isRecord = (value: unknown): value is JsonRecord =>
  typeof value === "object" && value !== null && !Array.isArray(value)

export const num = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) ? value : null)

export const str = (value: unknown): string | null => (typeof value === "string" ? value : null)

/** JSON.parse that never throws: `undefined` when the text is not JSON. */
export const parseJson = (text: string): unknown => {
  try {
    // JSON.parse is typed `any`; the caller narrows the `unknown`.
    const value: unknown = JSON.parse(text)
    return value
  } catch {
    return undefined
  }
}
