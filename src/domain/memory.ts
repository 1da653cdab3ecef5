/**
 * The memory store's rules, as pure functions: what a keyword may be, how a
 * set of keywords names an entry's file and the caps (the search, list and
 * vocabulary views are in memoryViews.ts, the file format is the store's). Both
 * store implementations (files and in-memory) use these, so they behave the
 * same.
 *
 * An entry is identified by its keywords alone. They are normalised
 * (trimmed, lower-cased, de-duplicated), put in canonical order and joined
 * with `_` to form the key, which is the file stem: `["Python", "async"]` is
 * `async_python.md`. `_` cannot occur in a keyword, so a key splits back
 * into exactly its keywords.
 *
 * An entry is *fixed* (immutable: no overwrite, append or delete) when any of
 * its keywords starts with `fix-`. Canonical order puts those keywords
 * first, so the file of every fixed entry starts with `fix-`:
 * `["easyai", "design"]` saved with `fix: true` becomes
 * `fix-easyai_design.md` (the first keyword given gets the prefix).
 *
 * @module
 */
import { Either, Schema } from "effect"
import type { KeywordCount } from "./SystemPrompt.js"
import { utf8Length } from "./utf8.js"

/** The longest keyword, in bytes. */
export const keywordMaxBytes = 32

/** The most keywords one entry carries. */
export const keywordsPerEntryMax = 8

/** The largest entry body, in bytes (256 KiB). */
export const bodyMaxBytes = 256 * 1024

/** The most entries one `knowledge_load` reads. */
export const loadMaxEntries = 4

/** A page size: the default when none is asked for, and the most allowed. */
export interface LimitCap {
  readonly default: number
  readonly max: number
}

/** Results per search: 10 by default, at most 20. */
export const searchLimit: LimitCap = { default: 10, max: 20 }

/** Entries per list: 50 by default, at most 200. */
export const listLimit: LimitCap = { default: 50, max: 200 }

/** Keywords per vocabulary listing: 200 by default, at most 500. */
export const keywordsLimit: LimitCap = { default: 200, max: 500 }

/** The keyword prefix that makes an entry immutable. */
export const fixPrefix = "fix-"

/** Why a memory operation failed. */
export class MemoryError extends Schema.TaggedError<MemoryError>()("MemoryError", {
  reason: Schema.Literal(
    "InvalidKeywords",
    "EmptyBody",
    "BodyTooLarge",
    "Immutable",
    "NotFound",
    "Conflict",
    "Io"
  ),
  /** The entry's file name, when one is concerned. */
  file: Schema.optional(Schema.String),
  /** A sentence for the reader (a person or a model): what went wrong and what to do instead. */
  detail: Schema.String,
  cause: Schema.optional(Schema.Defect)
}) {
  override get message(): string {
    return this.detail
  }
}

/** What the index knows about an entry without reading its body. */
export interface EntryMeta {
  /** The keywords joined by `_` in canonical order: the file stem. */
  readonly key: string
  /** The file name, `key + ".md"`. */
  readonly file: string
  /** The keywords, in canonical order. */
  readonly keywords: ReadonlyArray<string>
  /** Whether the entry is immutable (a keyword starts with `fix-`). */
  readonly fixed: boolean
  /** The body's size in bytes (UTF-8), header excluded. */
  readonly bytes: number
  /** When the entry was last written, epoch milliseconds. */
  readonly modifiedMillis: number
}

/** An entry with its body. */
export interface MemoryEntry extends EntryMeta {
  readonly body: string
}

/** What `save` did. */
export interface SaveResult {
  readonly entry: EntryMeta
  /** True when no entry had these keywords before. */
  readonly created: boolean
}

/** What `append` did. */
export interface AppendResult {
  readonly entry: EntryMeta
  /** True when no entry had these keywords before (the text became its body). */
  readonly created: boolean
  /** How many bytes the body grew by, separator included. */
  readonly addedBytes: number
}

/** One search result. */
export interface SearchHit {
  readonly entry: EntryMeta
  /** The query keywords the entry carries, in query order. */
  readonly matched: ReadonlyArray<string>
}

/** A page of search results. */
export interface SearchResult {
  /** How many entries matched in all. */
  readonly total: number
  /** The best `limit` of them: most matching keywords first, then most recent. */
  readonly hits: ReadonlyArray<SearchHit>
}

/** A page of listed entries. */
export interface ListResult {
  /** How many entries matched the prefix in all. */
  readonly total: number
  /** The first `limit` of them, by key. */
  readonly entries: ReadonlyArray<EntryMeta>
}

/** A page of the vocabulary. */
export interface KeywordsResult {
  /** How many entries the store holds. */
  readonly entries: number
  /** How many distinct keywords reached the minimum count. */
  readonly distinct: number
  /** The most common of them, count descending then name ascending. */
  readonly keywords: ReadonlyArray<KeywordCount>
}

const invalid = (detail: string) => new MemoryError({ reason: "InvalidKeywords", detail })

const isKeywordChar = (char: string): boolean =>
  (char >= "a" && char <= "z") || (char >= "A" && char <= "Z") || (char >= "0" && char <= "9") || char === "." ||
  char === "+" || char === "-"

const describeChar = (char: string): string => {
  const code = char.codePointAt(0) ?? 0
  return code < 0x20 || code === 0x7f ? `the control character U+${code.toString(16).padStart(4, "0")}` : `"${char}"`
}

/**
 * Why `keyword` (already trimmed) is not a valid keyword, or `undefined`
 * when it is: 1 to 32 bytes of letters, digits, `.`, `+` and `-`, and not
 * made of dots only. Checked character by character, so no separator, NUL
 * or other path trick can reach a file name.
 */
export const keywordProblem = (keyword: string): string | undefined => {
  if (keyword === "") return "a keyword is empty"
  for (const char of keyword) {
    if (char === "_") {
      return `keyword "${keyword}" contains "_", which joins keywords in file names: pass its parts as separate keywords, e.g. ${
        JSON.stringify(keyword.split("_").filter((part) => part !== ""))
      }`
    }
    if (!isKeywordChar(char)) {
      return `keyword ${JSON.stringify(keyword)} contains ${
        describeChar(char)
      }: a keyword is one word of letters, digits, ".", "+" or "-" (e.g. "python", "c++", "node.js")`
    }
  }
  if (keyword.length > keywordMaxBytes) {
    return `keyword "${keyword}" is ${keyword.length} bytes; the most is ${keywordMaxBytes}: use a shorter word`
  }
  if ([...keyword].every((char) => char === ".")) return `keyword "${keyword}" is only dots, which could name a directory`
  return undefined
}

/** Canonical order: `fix-` keywords first, then the rest; each group in code-unit order. */
export const compareKeywords = (a: string, b: string): number => {
  const fixedA = a.startsWith(fixPrefix)
  const fixedB = b.startsWith(fixPrefix)
  if (fixedA !== fixedB) return fixedA ? -1 : 1
  return a < b ? -1 : a > b ? 1 : 0
}

/** The validated identity of an entry. */
export interface EntryName {
  readonly keywords: ReadonlyArray<string>
  readonly key: string
  readonly file: string
  readonly fixed: boolean
}

/** The file name of a key. */
export const fileOf = (key: string): string => `${key}.md`

const nameOf = (keywords: ReadonlyArray<string>): EntryName => {
  const key = keywords.join("_")
  return { keywords, key, file: fileOf(key), fixed: keywords.some((k) => k.startsWith(fixPrefix)) }
}

/** Trims, validates, lower-cases and de-duplicates, keeping the order given. */
const normalise = (keywords: ReadonlyArray<string>): Either.Either<ReadonlyArray<string>, MemoryError> => {
  const out: Array<string> = []
  for (const raw of keywords) {
    const keyword = raw.trim()
    const problem = keywordProblem(keyword)
    if (problem !== undefined) return Either.left(invalid(problem))
    const lower = keyword.toLowerCase()
    if (!out.includes(lower)) out.push(lower)
  }
  if (out.length === 0) {
    return Either.left(invalid(`no keywords given: pass 1 to ${keywordsPerEntryMax} keywords, e.g. ["python", "asyncio"]`))
  }
  if (out.length > keywordsPerEntryMax) {
    return Either.left(
      invalid(
        `${out.length} keywords given; an entry has 1 to ${keywordsPerEntryMax}: keep the most specific ones`
      )
    )
  }
  return Either.right(out)
}

/**
 * Validates the keywords of one entry and names it. With `fix`, the first
 * keyword given gets the `fix-` prefix unless one already has it.
 */
export const entryName = (
  keywords: ReadonlyArray<string>,
  options: { readonly fix?: boolean } = {}
): Either.Either<EntryName, MemoryError> =>
  Either.flatMap(normalise(keywords), (normalised) => {
    const [first, ...rest] = normalised
    if (options.fix !== true || first === undefined || normalised.some((k) => k.startsWith(fixPrefix))) {
      return Either.right(nameOf([...normalised].sort(compareKeywords)))
    }
    const marked = `${fixPrefix}${first}`
    if (marked.length > keywordMaxBytes) {
      return Either.left(invalid(
        `with fix=true the first keyword becomes "${marked}", ${marked.length} bytes; the most is ${keywordMaxBytes}: list a shorter keyword first`
      ))
    }
    return Either.right(nameOf([marked, ...rest].sort(compareKeywords)))
  })

/**
 * The entry a file stem names, when the stem is a canonical key: valid
 * lower-case keywords, distinct, 1 to 8, in canonical order. Any other file
 * in the directory (`README.md`, a temporary file) is not an entry.
 */
export const parseKey = (stem: string): EntryName | undefined => {
  const keywords = stem.split("_")
  if (keywords.length > keywordsPerEntryMax) return undefined
  for (let i = 0; i < keywords.length; i++) {
    const keyword = keywords[i] ?? ""
    if (keywordProblem(keyword) !== undefined || keyword !== keyword.toLowerCase()) return undefined
    const previous = keywords[i - 1]
    if (previous !== undefined && compareKeywords(previous, keyword) >= 0) return undefined
  }
  return nameOf(keywords)
}

/** The entry a directory entry's name stands for, or `undefined` when the file is not an entry. */
export const parseFileName = (name: string): EntryName | undefined =>
  name.endsWith(".md") && name.length > 3 ? parseKey(name.slice(0, -3)) : undefined

/** Validates search keywords (the same rules as an entry's, without the fix prefix). */
export const queryKeywords = (keywords: ReadonlyArray<string>): Either.Either<ReadonlyArray<string>, MemoryError> =>
  normalise(keywords)

/**
 * Validates a list prefix: empty, or keyword characters and `_` (keys
 * contain it). Returned lower-cased.
 */
export const listPrefix = (prefix: string): Either.Either<string, MemoryError> => {
  const trimmed = prefix.trim()
  for (const char of trimmed) {
    if (char !== "_" && !isKeywordChar(char)) {
      return Either.left(
        invalid(`prefix ${JSON.stringify(trimmed)} contains ${describeChar(char)}: use the start of a keyword, e.g. "pyth"`)
      )
    }
  }
  return Either.right(trimmed.toLowerCase())
}

const formatBytes = (bytes: number): string => `${bytes} bytes`

/** Checks a body against the cap and for emptiness. */
export const checkBody = (body: string, file: string): Either.Either<number, MemoryError> => {
  if (body.trim() === "") {
    return Either.left(
      new MemoryError({ reason: "EmptyBody", file, detail: "the content is empty: write the facts to remember" })
    )
  }
  const bytes = utf8Length(body)
  return bytes > bodyMaxBytes
    ? Either.left(
      new MemoryError({
        reason: "BodyTooLarge",
        file,
        detail: `the content is ${formatBytes(bytes)}; an entry holds at most ${
          formatBytes(bodyMaxBytes)
        } (256 KiB): save a condensed version, or split it into several entries with more specific keywords`
      })
    )
    : Either.right(bytes)
}

/** The separator `append` puts between the old body and the new text. */
export const appendSeparator = "\n---\n\n"

/** The body after appending `addition` to `body`, with a `---` line between them. */
export const appendedBody = (body: string, addition: string): string =>
  `${body.endsWith("\n") ? body : `${body}\n`}${appendSeparator}${addition}`

/** Checks that an appended body stays under the cap. */
export const checkAppended = (
  file: string,
  previousBytes: number,
  body: string
): Either.Either<number, MemoryError> => {
  const bytes = utf8Length(body)
  return bytes > bodyMaxBytes
    ? Either.left(
      new MemoryError({
        reason: "BodyTooLarge",
        file,
        detail: `appending would make "${file}" ${formatBytes(bytes)} (it has ${
          formatBytes(previousBytes)
        }); an entry holds at most ${
          formatBytes(bodyMaxBytes)
        }: knowledge_save a condensed version under the same keywords, or start a new entry with more specific keywords`
      })
    )
    : Either.right(bytes)
}

/** The failure for a write to a fixed entry. */
export const immutable = (file: string, verb: "overwrite" | "append to" | "delete"): MemoryError =>
  new MemoryError({
    reason: "Immutable",
    file,
    detail: `"${file}" is a fix- entry and immutable: you cannot ${verb} it. ${
      verb === "delete"
        ? "Leave it, or ask the operator to remove the file."
        : "Save new or corrected facts under other keywords (without fix-)."
    }`
  })

/** The failure for a missing entry. */
export const notFound = (name: EntryName): MemoryError =>
  new MemoryError({
    reason: "NotFound",
    file: name.file,
    detail: `no entry "${name.file}": knowledge_search(keywords=${
      JSON.stringify(name.keywords.map((k) => k.startsWith(fixPrefix) ? k.slice(fixPrefix.length) : k))
    }) finds the entries that carry these keywords`
  })
