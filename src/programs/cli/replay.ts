/**
 * `easyai replay FILE.jsonl --to-script`: the model turns a trace file
 * recorded, printed as a `ScriptedChatModel` script (JSON), so what a real
 * model did becomes a deterministic test.
 *
 * @module
 */
import { Console, Effect, Either } from "effect"
import { readFile } from "node:fs/promises"
import { errorText } from "../../domain/errorText.js"
import { ConfigurationError } from "../../domain/errors.js"
import { encodeScript, parseTrace, toScript } from "../../layers/tracing/replay.js"
import { reportFailure } from "./failure.js"

/** Prints the script of the trace in `file`; `asScript` is `--to-script`, without which there is nothing to do. */
export const replay = (file: string, asScript: boolean) =>
  Effect.gen(function*() {
    if (!asScript) return yield* new ConfigurationError({ message: "say what to make of the trace: --to-script prints it as a script" })
    const text = yield* Effect.tryPromise({
      try: () => readFile(file, "utf8"),
      catch: (error) => new ConfigurationError({ message: `cannot read ${file}: ${errorText(error)}` })
    })
    const script = yield* Either.flatMap(parseTrace(file, text), (records) => toScript(file, records))
    yield* Console.log(encodeScript(script))
  }).pipe(reportFailure("easyai replay"))
