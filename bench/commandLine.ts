/**
 * Reading a benchmark's command line: positional arguments, `--name=value`
 * options and bare `--flag`s. It imports nothing of easyai, so a benchmark's
 * baseline process can use it without loading the library it is measured
 * against.
 */

/** The command line as given: the positional arguments, `--name=value` options and bare `--flag`s. */
export interface CommandLine {
  readonly positional: ReadonlyArray<string>
  /** The value of `--name=…`, or `fallback`. */
  readonly option: (name: string, fallback: string) => string
  /** Whether `--name` was given. */
  readonly flag: (name: string) => boolean
}

/** Reads `process.argv`. */
export const commandLine = (): CommandLine => {
  const args = process.argv.slice(2)
  return {
    positional: args.filter((arg) => !arg.startsWith("--")),
    option: (name, fallback) => args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback,
    flag: (name) => args.includes(`--${name}`)
  }
}

/** Prints `message` and exits with code 2, as a mistyped command line does. */
const refuse = (message: string): never => {
  console.error(message)
  return process.exit(2)
}

/** A whole number ≥ `min` given as `--name=…`; anything else ends the run with a one-line error. */
export const wholeNumber = (name: string, text: string, min: number): number => {
  const value = Number(text)
  return Number.isInteger(value) && value >= min ? value : refuse(`--${name} must be a whole number ≥ ${min} (got "${text}")`)
}
