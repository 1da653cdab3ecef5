/**
 * `datetime`: the current date and time, so the model stops guessing
 * "today" from its training data. The time comes from Effect's `Clock`
 * (tests drive it with `TestClock`).
 *
 * @module
 */
import { DateTime, Effect, Option, Schema } from "effect"
import { closestNames } from "../../domain/closestNames.js"
import * as Tool from "../../domain/Tool.js"
import { ToolResult } from "../../domain/ToolCall.js"

const weekdays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"] as const

const description = `Return the current date and time: UTC and local, the time zone's name and offset, ISO 8601 strings and the weekday.
Call it first whenever the answer depends on "now": today's date, this year, the latest version, ages, deadlines, durations.
Your training data does not know today's date; this tool does.

Parameters:
  timezone  Optional. An IANA time zone name, e.g. "Europe/Berlin", "America/New_York", "Asia/Tokyo", "UTC".
            Default: this machine's time zone.

Output, one field per line:
  UTC:       2026-04-25T10:20:49Z (Saturday)
  Local:     2026-04-25T07:20:49-03:00 (Saturday)
  Time zone: America/Sao_Paulo, UTC-03:00 (GMT-3)
  Unix time: 1777112449

Examples:
  {}
  {"timezone": "Asia/Tokyo"}

Errors: an unknown time zone name returns close matches and examples of valid names.`

const pad = (value: number, width = 2): string => String(value).padStart(width, "0")

const isoParts = (parts: DateTime.DateTime.PartsWithWeekday): string =>
  `${pad(parts.year, 4)}-${pad(parts.month)}-${pad(parts.day)}T${pad(parts.hours)}:${pad(parts.minutes)}:${
    pad(parts.seconds)
  }`

const weekday = (parts: DateTime.DateTime.PartsWithWeekday): string => weekdays[parts.weekDay] ?? ""

/** The zone's short name at that instant ("CEST", "GMT-3"), when Intl knows one. */
const shortZoneName = (zone: string, epochMillis: number): string | undefined =>
  new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "short" })
    .formatToParts(new Date(epochMillis))
    .find((part) => part.type === "timeZoneName")?.value

/** Resolves a zone name leniently: spaces may stand for underscores. */
const resolveZone = (name: string): Option.Option<DateTime.TimeZone.Named> =>
  Option.orElse(DateTime.zoneMakeNamed(name), () => DateTime.zoneMakeNamed(name.split(" ").join("_")))

const unknownZone = (name: string) => {
  const suggestions = closestNames(name, Intl.supportedValuesOf("timeZone"))
  const hint = suggestions.length > 0 ? ` Did you mean ${suggestions.map((s) => `"${s}"`).join(", ")}?` : ""
  return Tool.fail(
    `unknown time zone "${name}".${hint} Use an IANA time zone name such as "Europe/Berlin", "America/New_York", ` +
      `"Asia/Tokyo" or "UTC", or leave timezone out for this machine's zone. Example: {"timezone": "Europe/Berlin"}`
  )
}

/** The report for `now` in `zone`. */
export const describeNow = (now: DateTime.Utc, zone: DateTime.TimeZone.Named, asked?: string): string => {
  const local = DateTime.setZone(now, zone)
  const utcParts = DateTime.toPartsUtc(now)
  const localParts = DateTime.toParts(local)
  const offset = DateTime.zonedOffsetIso(local)
  const epochMillis = DateTime.toEpochMillis(now)
  const short = shortZoneName(zone.id, epochMillis)
  const askedNote = asked !== undefined && asked.toLowerCase() !== zone.id.toLowerCase() ? ` (asked for "${asked}")` : ""
  return [
    `UTC:       ${isoParts(utcParts)}Z (${weekday(utcParts)})`,
    `Local:     ${isoParts(localParts)}${offset} (${weekday(localParts)})`,
    `Time zone: ${zone.id}${askedNote}, UTC${offset}${short === undefined ? "" : ` (${short})`}`,
    `Unix time: ${Math.floor(epochMillis / 1000)}`
  ].join("\n")
}

/** The same report as data, for clients that read structured results (MCP `structuredContent`). */
const DatetimeData = Schema.Struct({
  utc: Schema.String.annotations({ description: "UTC, ISO 8601, e.g. 2026-04-25T10:20:49Z" }),
  local: Schema.String.annotations({ description: "Local time, ISO 8601 with offset" }),
  weekday: Schema.String,
  timeZone: Schema.String.annotations({ description: "IANA time zone name" }),
  offset: Schema.String.annotations({ description: "UTC offset, e.g. -03:00" }),
  unixTime: Schema.Int
})

const nowData = (now: DateTime.Utc, zone: DateTime.TimeZone.Named): typeof DatetimeData.Type => {
  const local = DateTime.setZone(now, zone)
  const localParts = DateTime.toParts(local)
  const offset = DateTime.zonedOffsetIso(local)
  return {
    utc: `${isoParts(DateTime.toPartsUtc(now))}Z`,
    local: `${isoParts(localParts)}${offset}`,
    weekday: weekday(localParts),
    timeZone: zone.id,
    offset,
    unixTime: Math.floor(DateTime.toEpochMillis(now) / 1000)
  }
}

const report = (now: DateTime.Utc, zone: DateTime.TimeZone.Named, asked?: string): Tool.ToolOutput =>
  ToolResult.data(nowData(now, zone), describeNow(now, zone, asked))

/** `datetime`: the current UTC and local date and time, read from the `Clock`. */
export const datetime: Tool.Tool = Tool.make({
  name: "datetime",
  description,
  shortDescription:
    "Return the current UTC and local date/time (optional timezone=\"Europe/Berlin\"). Call for 'now'/'today'/'latest'.",
  parameters: Schema.Struct({
    timezone: Schema.optional(
      Schema.String.pipe(Schema.maxLength(64)).annotations({
        description: `Optional. IANA time zone name, e.g. "Europe/Berlin". Default: this machine's zone.`
      })
    )
  }),
  examples: [{}, { timezone: "Asia/Tokyo" }],
  annotations: { readOnly: true, openWorld: false },
  outputSchema: Tool.parametersJsonSchema(DatetimeData),
  handler: ({ timezone }) =>
    Effect.gen(function*() {
      const now = yield* DateTime.now
      const asked = timezone?.trim() ?? ""
      if (asked === "") return report(now, DateTime.zoneMakeLocal())
      const zone = resolveZone(asked)
      return Option.isSome(zone) ? report(now, zone.value, asked) : yield* unknownZone(asked)
    })
})
