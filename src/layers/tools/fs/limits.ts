/**
 * The caps of the fs tools, named once: the descriptions, the handlers and
 * the documentation all quote these.
 *
 * @module
 */

/** Line mode of read: lines shown when `limit` is not given. */
export const readDefaultLines = 200
/** Line mode of read: the most lines one call shows. */
export const readMaxLines = 2000
/** Byte mode of read: bytes shown when `limit` is not given. */
export const readDefaultBytes = 65_536
/** Byte mode of read: the most bytes one call shows (1 MiB). */
export const readMaxBytes = 1_048_576
/** Line mode of read: output budget, so 2000 very long lines cannot flood the context. */
export const readLineModeMaxBytes = 1_048_576
/** Files up to this size (8 MiB) get their total line count reported. */
export const lineCountMaxBytes = 8 * 1_048_576
/** The largest file edit will rewrite (8 MiB). */
export const editMaxBytes = 8 * 1_048_576
/** Entries one list call shows. */
export const listMaxEntries = 1000
/** Files glob and grep walk before stopping. */
export const walkMaxFiles = 20_000
/** Glob results shown by default. */
export const globDefaultResults = 200
/** The most glob results one call shows. */
export const globMaxResults = 2000
/** Grep matches shown by default. */
export const grepDefaultMatches = 100
/** The most grep matches one call shows. */
export const grepMaxMatches = 1000
/** Bytes grep scans per file (1 MiB); the rest of a larger file is not searched. */
export const grepMaxBytesPerFile = 1_048_576
/** Characters of a matching line grep shows. */
export const grepMaxLineChars = 300
/** The longest glob or regular expression accepted. */
export const patternMaxLength = 1000
/** Operations one `ops` batch may hold. */
export const batchMaxOps = 50
/** Distinct files one `ops` batch may name. */
export const batchMaxFiles = 20
/** Bytes of a successful read shown in a batch report (2 KiB). */
export const batchReadClipBytes = 2048
