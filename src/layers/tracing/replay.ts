/**
 * From a trace file to a `ScriptedChatModel` script: every `ChatModel.stream`
 * span carries the model events of its turn (`easyai.response.events`), so
 * a conversation recorded with `--trace-file` plays again, deterministically,
 * on the scripted model.
 *
 * @module
 */
import { Either, ParseResult, Schema } from "effect"
import { ConfigurationError, ModelError } from "../../domain/errors.js"
import { parseJson } from "../../domain/json.js"
import { ModelEvent } from "../../domain/ModelEvent.js"
import { Script } from "../model/ScriptedChatModel.js"
import { SpanRecord } from "./SpanRecord.js"

/** The name of the span of one model turn. */
export const modelTurnSpan = "ChatModel.stream"
/** The attribute of a model turn's span holding its events as JSON. */
export const eventsAttribute = "easyai.response.events"

const decodeRecord = Schema.decodeUnknownEither(SpanRecord)
const decodeEvents = Schema.decodeUnknownEither(Schema.Array(ModelEvent))

const refuse = (file: string, line: number, detail: string) =>
  new ConfigurationError({ message: `${file}:${line}: ${detail}` })

/** The spans of a JSON-lines trace, in file order; blank lines are skipped, anything else that is not a span is refused. */
export const parseTrace = (file: string, text: string): Either.Either<ReadonlyArray<SpanRecord>, ConfigurationError> => {
  const records: Array<SpanRecord> = []
  const lines = text.split("\n")
  for (const [index, line] of lines.entries()) {
    if (line.trim() === "") continue
    const json = parseJson(line)
    if (Either.isLeft(json)) return Either.left(refuse(file, index + 1, `not JSON: ${json.left}`))
    const record = decodeRecord(json.right)
    if (Either.isLeft(record)) {
      return Either.left(refuse(file, index + 1, `not a span: ${ParseResult.TreeFormatter.formatErrorSync(record.left)}`))
    }
    records.push(record.right)
  }
  return Either.right(records)
}

/**
 * The script of the model turns among `records`, in the order they started.
 * A turn that failed replays its events and then fails with the recorded
 * error, as a `ModelError` of reason `BadResponse`.
 */
export const toScript = (file: string, records: ReadonlyArray<SpanRecord>): Either.Either<Script, ConfigurationError> => {
  const turns = records.filter((record) => record.name === modelTurnSpan).sort((a, b) => a.start - b.start)
  if (turns.length === 0) {
    return Either.left(new ConfigurationError({ message: `${file}: no ${modelTurnSpan} span: was it written with --trace-file?` }))
  }
  const script: Array<Script["turns"][number]> = []
  for (const turn of turns) {
    const raw = turn.attributes[eventsAttribute]
    const json = typeof raw === "string" ? parseJson(raw) : Either.left(`no ${eventsAttribute} attribute`)
    const events = Either.flatMap(json, (value) => Either.mapLeft(decodeEvents(value), ParseResult.TreeFormatter.formatErrorSync))
    if (Either.isLeft(events)) {
      return Either.left(new ConfigurationError({ message: `${file}: span ${turn.spanId}: ${events.left}` }))
    }
    script.push(
      turn.status === "error"
        ? [...events.right, { _tag: "Fail", error: new ModelError({ reason: "BadResponse", detail: turn.error ?? "the recorded turn failed" }) }]
        : events.right
    )
  }
  return Either.right({ turns: script })
}

/** A script as the JSON text `easyai replay --to-script` prints. */
export const encodeScript = (script: Script): string =>
  JSON.stringify(Schema.encodeSync(Script)(script), null, 2)
