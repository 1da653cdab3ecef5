/**
 * What the model reads about the `knowledge_*` tools: the descriptions that
 * push it to use memory first and to save what it learns (generic "saves a
 * note" wording produces a model that seldom remembers anything).
 *
 * @module
 */
import { bodyMaxBytes, keywordMaxBytes, keywordsLimit, keywordsPerEntryMax, listLimit, loadMaxEntries, searchLimit } from "../../domain/memory.js"

const workflow = `Memory workflow (whenever you also have web tools):
  1. Memory first: knowledge_search the keywords of the question, knowledge_load what looks relevant.
  2. Web second: search the web too, even when memory had results.
  3. Merge and answer: combine both; on a conflict prefer the more recent, more authoritative source.
  4. Update memory: knowledge_save (or knowledge_append) the durable new facts the web gave you.`

/** The rules a keyword follows, as every tool that takes keywords states them. */
export const keywordRules = `1 to ${keywordsPerEntryMax} keywords, each ONE word of letters, digits, ".", "+" or "-" ` +
  `(at most ${keywordMaxBytes} bytes; no spaces, "_" or "/"). Case does not matter.`

/** What the model reads about `knowledge_save`. */
export const saveDescription = `Save a fact, decision, recipe or finding to your long-term memory, so you still know it in later conversations.
USE THIS AGGRESSIVELY: the user's preferences and setup, project facts and decisions, commands and fixes that worked,
answers you had to look up on the web, anything the user might ask again. A memory you did not save is lost.

The keywords ARE the entry's name: sorted and joined by "_" they form its file name, so ["python", "asyncio"] is
"asyncio_python.md". Saving again with the same keywords REPLACES that entry; to add to it, use knowledge_append.

Parameters:
  keywords  Required. ${keywordRules}
            Pick specific ones: ["postgres", "backup", "cron"] finds better than ["database"].
  content   Required. The Markdown body, at most ${bodyMaxBytes} bytes (256 KiB). Write it to make sense on its own
            months from now: what, why, where it came from (URL, file), and the date when it matters.
  fix       Optional. true mints an IMMUTABLE entry: the first keyword gets the "fix-" prefix
            (["easyai", "design"] -> "fix-easyai_design.md") and nothing can overwrite, append to or delete it.
            Default false. Only for facts that must never change.

Output: created "key.md" (N bytes), or updated "key.md" (N bytes, replaced the previous body).

Examples:
  {"keywords": ["user", "editor"], "content": "The user edits with Neovim, tabs of width 4."}
  {"keywords": ["easyai", "design"], "content": "Keywords are the only identifier.", "fix": true}

${workflow}

Errors: invalid keywords, empty or too-large content, and overwriting a fix- entry are refused with the reason and
what to do instead.`

/** What the model reads about `knowledge_append`. */
export const appendDescription = `Add to a memory entry without losing what it already says: your text goes after a "---" line.
When no entry has these keywords yet, it is created. Use it to grow an entry as you learn more: a new finding,
a changed setting, a dated update, the answer to a follow-up question.

Parameters:
  keywords  Required. The entry's keywords exactly as knowledge_search shows them. ${keywordRules}
  content   Required. The text to add. The whole entry stays at most ${bodyMaxBytes} bytes (256 KiB).

Output:
  updated "key.md" (+N B → M B total)   the entry grew by N bytes (separator included) to M bytes
  created "key.md" (N bytes)            there was no such entry; it now holds your text

Example:
  {"keywords": ["postgres", "backup"], "content": "2026-05: backups moved to 02:00 UTC."}

Errors: fix- entries are immutable (cannot append; save new facts under other keywords); an entry that would grow
past 256 KiB is refused (save a condensed version with knowledge_save instead).`

/** What the model reads about `knowledge_search`. */
export const searchDescription = `Search your long-term memory by keywords. It is the FIRST place to look for anything you might
already know: before answering from training data, and before searching the web. The MEMORY VOCABULARY block of
your instructions lists the keywords memory holds; knowledge_keywords lists them all.

Ranking: entries carrying the most of your keywords first, then the most recently written. A keyword also finds
fixed entries ("design" finds "fix-design"). Matching is exact per keyword (case-insensitive): search several
related words, e.g. ["postgres", "postgresql", "backup"].

Parameters:
  keywords     Required. ${keywordRules}
  max_results  Optional. 1 to ${searchLimit.max}. Default ${searchLimit.default}.

Output: one line per entry (file, keywords, size, date, how many of your keywords it carries), then the
knowledge_load call that reads them. Search shows no bodies: load the ones that look relevant.

Example:
  {"keywords": ["python", "asyncio", "sockets"]}

${workflow}`

/** What the model reads about `knowledge_load`. */
export const loadDescription = `Read memory entries in full: 1 to ${loadMaxEntries} per call. Search first (knowledge_search), then load
the entries that look relevant; more than ${loadMaxEntries} at once would drown your context, so narrow down first.

Parameters:
  keywords  Required. 1 to ${loadMaxEntries} entries, each given as its keyword list (["asyncio", "python"]) or its
            file name as search shows it ("asyncio_python.md").

Output: each entry under a "=== file ===" line with its keywords, size and date, then its body. Entries that do not
exist are reported; the others are still shown.

Examples:
  {"keywords": [["asyncio", "python"]]}
  {"keywords": [["asyncio", "python"], "fix-easyai_design.md"]}`

/** What the model reads about `knowledge_list`. */
export const listDescription = `Browse your long-term memory: the entries whose name or any keyword starts with a prefix (all of them
without one), in name order. Use it to review what you know about a topic, to find an entry to update or
delete, or to see what memory holds at all.

Parameters:
  prefix  Optional. The start of a keyword or file name, e.g. "pyth" or "fix-". Default: every entry.
  max     Optional. 1 to ${listLimit.max}. Default ${listLimit.default}.

Output: one line per entry (file, keywords, size, date), and how many more there are.

Examples:
  {}
  {"prefix": "postgres", "max": 20}`

/** What the model reads about `knowledge_delete`. */
export const deleteDescription = `Delete a memory entry that is wrong, stale or superseded, to keep your memory sharp.
Prefer knowledge_save (replace) or knowledge_append (add) when the entry is still partly right.

Parameters:
  keywords  Required. The entry's keywords exactly as knowledge_search or knowledge_list show them. ${keywordRules}

Output: deleted "key.md" (N bytes).

Example:
  {"keywords": ["node", "version"]}

Errors: an entry that does not exist is reported (search for its keywords); fix- entries are immutable and cannot
be deleted.`

/** What the model reads about `knowledge_keywords`. */
export const keywordsDescription = `List the keywords your long-term memory uses, most common first, with how many entries carry each.
Use it to discover what you already know and to reuse existing keywords when you save, so related entries
stay findable together.

Parameters:
  min_count  Optional. Only keywords carried by at least this many entries. Default 1.
  max        Optional. 1 to ${keywordsLimit.max}. Default ${keywordsLimit.default}.

Output: "N entries, K distinct keywords", then keyword(count) pairs.

Example:
  {"min_count": 2}`
