/**
 * The text of the `knowledge_*` tools' replies: how an entry, its summary
 * and an append's outcome read for the model.
 *
 * @module
 */
import type { AppendResult, EntryMeta, MemoryEntry } from "../../domain/memory.js"

/** `2026-05-01 14:03 UTC`. */
const formatDate = (epochMillis: number): string => {
  const iso = new Date(epochMillis).toISOString()
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`
}

/** One line about an entry: file, keywords, size, date, and whether it is fixed. */
export const summary = (entry: EntryMeta): string =>
  `${entry.file} — keywords: ${entry.keywords.join(" ")} — ${entry.bytes} bytes — ${formatDate(entry.modifiedMillis)}${
    entry.fixed ? " — fixed" : ""
  }`

/** An entry in full, under a `=== file (…) ===` line. */
export const renderEntry = (entry: MemoryEntry): string =>
  `=== ${entry.file} (keywords: ${entry.keywords.join(" ")}; ${entry.bytes} bytes; saved ${
    formatDate(entry.modifiedMillis)
  }${entry.fixed ? "; fixed" : ""}) ===\n${entry.body}`

/** What `knowledge_append` reports: `updated "key.md" (+N B → M B total)` or `created "key.md" (N bytes)`. */
export const appendMessage = (result: AppendResult): string =>
  result.created
    ? `created "${result.entry.file}" (${result.entry.bytes} bytes)`
    : `updated "${result.entry.file}" (+${result.addedBytes} B → ${result.entry.bytes} B total)`
