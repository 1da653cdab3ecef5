/**
 * What the server answers when it cannot do what was asked: an HTTP status
 * and an OpenAI-shaped error envelope, `{"error": {"message", "type",
 * "code", "param"}}`, which every OpenAI SDK knows how to surface.
 *
 * @module
 */
import { type HttpApp, type HttpServerError, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect, Schema } from "effect"

/** A request the server refuses or could not serve. */
export class ApiError extends Schema.TaggedError<ApiError>()("ApiError", {
  status: Schema.Number,
  /** OpenAI's error `type`, e.g. `invalid_request_error`. */
  type: Schema.String,
  detail: Schema.String,
  /** A machine-readable code, e.g. `context_length_exceeded`. */
  code: Schema.optional(Schema.String),
  /** The request field at fault, when there is one. */
  param: Schema.optional(Schema.String),
  /** Seconds a client should wait before trying again (503). */
  retryAfter: Schema.optional(Schema.Number),
  /** Extra fields of the envelope, e.g. llama.cpp's `n_prompt_tokens` / `n_ctx`. */
  extra: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
}) {
  override get message(): string {
    return `HTTP ${this.status} ${this.type}: ${this.detail}`
  }
}

/** 400: the request is malformed or asks for something impossible. */
export const badRequest = (detail: string, param?: string, code?: string): ApiError =>
  new ApiError({
    status: 400,
    type: "invalid_request_error",
    detail,
    ...(param === undefined ? {} : { param }),
    ...(code === undefined ? {} : { code })
  })

/** 401: the API key is missing or wrong. */
export const unauthorized = (): ApiError =>
  new ApiError({
    status: 401,
    type: "authentication_error",
    code: "invalid_api_key",
    detail: "this server needs an API key: send `Authorization: Bearer <key>`"
  })

/** 403: a browser page from an origin the CORS policy does not admit tried to change something. */
export const forbiddenOrigin = (origin: string): ApiError =>
  new ApiError({
    status: 403,
    type: "permission_error",
    code: "origin_not_allowed",
    detail: `requests from the page at ${JSON.stringify(origin.slice(0, 200))} are not allowed by this server's CORS policy`
  })

/** 421: the request names (in `Host`) a server this one is not; a page rebinding its own name to this machine gets this. */
export const misdirectedHost = (host: string | undefined): ApiError =>
  new ApiError({
    status: 421,
    type: "invalid_request_error",
    code: "host_not_allowed",
    detail: host === undefined
      ? "the request has no Host header; send the address of this server"
      : `this server does not answer for the host ${JSON.stringify(host.slice(0, 200))}; ` +
        "the operator can admit it with --allowed-hosts (INI [SERVER] allowed_hosts)"
  })

/** 404: no such route or no such model. */
export const notFound = (detail: string, code = "not_found"): ApiError =>
  new ApiError({ status: 404, type: "not_found_error", code, detail })

/** 413: the body is larger than the server accepts. */
export const payloadTooLarge = (limitBytes: number): ApiError =>
  new ApiError({
    status: 413,
    type: "invalid_request_error",
    code: "request_too_large",
    detail: `the request body is larger than ${limitBytes} bytes`
  })

/** 503: every generation slot is busy and the wait queue is full. */
export const overloaded = (retryAfterSeconds: number): ApiError =>
  new ApiError({
    status: 503,
    type: "server_overloaded",
    code: "server_busy",
    detail: "every generation slot is busy and the queue is full; try again shortly",
    retryAfter: retryAfterSeconds
  })

/** 500: the model or the server failed; the server itself keeps serving. */
export const internal = (detail: string): ApiError => new ApiError({ status: 500, type: "server_error", detail })

/** The envelope of `error`, as sent in a body or an SSE `data:` line. */
export const envelope = (error: ApiError): { readonly error: Record<string, unknown> } => ({
  error: {
    message: error.detail,
    type: error.type,
    code: error.code ?? null,
    param: error.param ?? null,
    ...error.extra
  }
})

/** The HTTP response for `error`. */
export const toResponse = (error: ApiError): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.unsafeJson(envelope(error), {
    status: error.status,
    ...(error.retryAfter === undefined ? {} : { headers: { "retry-after": String(error.retryAfter) } })
  })

/**
 * What every app does with a request its routes do not answer: a route
 * missing is a 404 with `notFoundDetail`'s wording; a defect is a bug, logged
 * and answered as a 500 while the server stays up.
 */
export const answerRoutingFailures = (notFoundDetail: (request: HttpServerRequest.HttpServerRequest) => string) =>
<R>(
  app: HttpApp.HttpApp<HttpServerResponse.HttpServerResponse, HttpServerError.RouteNotFound, R>
): HttpApp.HttpApp<HttpServerResponse.HttpServerResponse, never, R> =>
  app.pipe(
    Effect.catchTag("RouteNotFound", (missing) => Effect.succeed(toResponse(notFound(notFoundDetail(missing.request))))),
    Effect.catchAllDefect((defect) =>
      Effect.as(Effect.logError("request failed unexpectedly", defect), toResponse(internal("the server failed unexpectedly"))))
  )
