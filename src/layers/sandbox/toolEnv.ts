/**
 * The environment of a tool process: never the agent's own, which holds
 * its API keys and whatever else the operator exported, but a short list
 * a shell needs to behave (PATH, HOME, locale, terminal, user, shell, temp
 * directory) plus the variables the operator names.
 *
 * easyai's own variables (`EASYAI_*`: API keys among them) never reach a
 * tool, even when named.
 *
 * @module
 */
import { Either } from "effect"

/** Passed through when set: what a shell and common programs need to behave as usual. */
export const passThroughNames: ReadonlyArray<string> = [
  "PATH",
  "HOME",
  "LANG",
  "LANGUAGE",
  "TERM",
  "TZ",
  "USER",
  "LOGNAME",
  "SHELL",
  "TMPDIR"
]

/** Locale variables (`LC_ALL`, `LC_CTYPE`, …) pass through too. */
const isLocale = (name: string): boolean => name.startsWith("LC_")

/** easyai's own variables: its keys and settings, never a tool's business. */
export const isEasyaiVariable = (name: string): boolean => name.toUpperCase().startsWith("EASYAI_")

/**
 * Checks the operator's extra names: each must be a variable name, and none
 * of easyai's own. On failure, the sentence that says why.
 */
export const checkToolEnvNames = (names: ReadonlyArray<string>): Either.Either<ReadonlyArray<string>, string> => {
  const refused = names.filter(isEasyaiVariable)
  if (refused.length > 0) {
    return Either.left(
      `${refused.join(", ")} cannot be passed to tools: easyai's own variables (EASYAI_*, its API keys among them) never reach a tool process`
    )
  }
  const invalid = names.filter((name) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
  return invalid.length > 0
    ? Either.left(`${invalid.map((name) => JSON.stringify(name)).join(", ")} is not a variable name (letters, digits and _)`)
    : Either.right(names)
}

/** The variables of `source` a tool process gets: the pass-through list and `extra`, never `EASYAI_*`. */
export const toolEnvironment = (
  extra: ReadonlyArray<string>,
  source: Readonly<Record<string, string | undefined>>
): Record<string, string> => {
  const wanted = new Set([...passThroughNames, ...extra])
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || isEasyaiVariable(name)) continue
    if (wanted.has(name) || isLocale(name)) env[name] = value
  }
  return env
}
