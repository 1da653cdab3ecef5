/**
 * Reading a JSON request body safely: the size is capped while the bytes
 * arrive (a declared `Content-Length` over the cap is refused before any is
 * read), and the nesting depth is checked on the raw text before anything
 * is built from it, so a 100 000-deep array costs one linear scan, not a
 * deep object graph and a recursive decoder walking it.
 *
 * @module
 */
import { FileSystem, HttpServerRequest } from "@effect/platform"
import { Effect, Either, Option, ParseResult, Schema, Stream } from "effect"
import { maxJsonDepth, nestingExceeds } from "../../domain/jsonDepth.js"
import { type ApiError, badRequest, payloadTooLarge } from "./ApiError.js"
import { parseJson } from "../../domain/json.js"

/** The limits a body is read under. */
export interface BodyLimits {
  /** The largest body accepted, in bytes. */
  readonly maxBytes: number
  /** The deepest nesting of arrays and objects accepted. */
  readonly maxDepth: number
}

/** The default limits: 8 MiB, 256 levels. */
export const defaultBodyLimits: BodyLimits = { maxBytes: 8 * 1024 * 1024, maxDepth: maxJsonDepth }

/**
 * How much of an oversized body is read and thrown away so the 413 can be
 * written on a connection the client still reads from; past that the
 * connection is cut instead.
 */
const drainAllowance = (maxBytes: number): number => Math.max(maxBytes, 16 * 1024 * 1024)

/**
 * The body's bytes, or 413 when they pass `maxBytes`. A declared length
 * over the cap is refused before any byte is read; an undeclared
 * (chunked) one is kept up to the cap and drained past it.
 */
const boundedBytes = (request: HttpServerRequest.HttpServerRequest, maxBytes: number) =>
  Effect.gen(function*() {
    const declared = Number(request.headers["content-length"] ?? Number.NaN)
    if (Number.isFinite(declared) && declared > maxBytes) return yield* payloadTooLarge(maxBytes)
    if (Number.isFinite(declared)) {
      // A declared length within the cap: node's parser delivers exactly that many bytes, read in one go.
      const whole = yield* HttpServerRequest.withMaxBodySize(request.arrayBuffer, Option.some(FileSystem.Size(maxBytes))).pipe(
        Effect.mapError(() => badRequest("the request body could not be read"))
      )
      return Buffer.from(whole)
    }
    const kept: Array<Uint8Array> = []
    let received = 0
    yield* request.stream.pipe(
      Stream.mapError(() => badRequest("the request body could not be read")),
      Stream.runForEach((chunk) => {
        received += chunk.length
        if (received <= maxBytes) kept.push(chunk)
        return received > maxBytes + drainAllowance(maxBytes) ? payloadTooLarge(maxBytes) : Effect.void
      })
    )
    if (received > maxBytes) return yield* payloadTooLarge(maxBytes)
    return Buffer.concat(kept)
  })

/** The request's body as text, failing with 413 past `maxBytes`. */
export const readBodyText = (maxBytes: number): Effect.Effect<string, ApiError, HttpServerRequest.HttpServerRequest> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    Effect.map(boundedBytes(request, maxBytes), (bytes) => bytes.toString("utf8")))

/**
 * The request's body as parsed JSON, within `limits`: 413 past the size
 * cap, 400 for an empty body, nesting past the depth cap, or text that is
 * not JSON.
 */
export const readJsonBody = (limits: BodyLimits): Effect.Effect<unknown, ApiError, HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function*() {
    const text = yield* readBodyText(limits.maxBytes)
    if (text.trim() === "") return yield* badRequest("the request body is empty; send a JSON object")
    if (nestingExceeds(text, limits.maxDepth)) {
      return yield* badRequest(`the request body nests deeper than ${limits.maxDepth} levels`)
    }
    return yield* Either.mapLeft(parseJson(text), (message) => badRequest(`the request body is not valid JSON: ${message}`))
  })

/** The first problem of a decode failure as `path: message`, and the path. */
const firstIssue = (error: ParseResult.ParseError): { readonly text: string; readonly path: string } => {
  const [issue] = ParseResult.ArrayFormatter.formatErrorSync(error)
  if (issue === undefined) return { text: error.message, path: "" }
  const path = issue.path.map((part, index) => (typeof part === "number" ? `[${part}]` : `${index === 0 ? "" : "."}${String(part)}`)).join("")
  return { text: path === "" ? issue.message : `${path}: ${issue.message}`, path }
}

/** A parsed body decoded with `schema`, or a 400 naming its first problem and where it is. */
export const decodeRequestBody = <A, I>(schema: Schema.Schema<A, I>, json: unknown): Either.Either<A, ApiError> =>
  Either.mapLeft(Schema.decodeUnknownEither(schema)(json, { errors: "first" }), (error) => {
    const issue = firstIssue(error)
    return badRequest(`invalid request: ${issue.text}`, issue.path === "" ? undefined : issue.path)
  })
