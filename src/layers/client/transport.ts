/**
 * The HTTP transport under the client: a client of the one HTTP stack
 * (`layers/http`), one retried send, and body reads under the inactivity
 * timeout. HTTP types stay in this layer: what
 * leaves it is a response to read and the typed errors of `httpErrors`.
 *
 * @module
 */
import { HttpClient, type HttpClientError, type HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import { Duration, Effect, ExecutionStrategy, Exit, Scope, Stream } from "effect"
import { HttpStatusError, TransportError } from "../../domain/httpErrors.js"
import { type AttemptError, withRetry } from "./retry.js"
import { networkErrorText } from "../../domain/errorText.js"

/** The most bytes of an error body kept for its message. */
const maxErrorBody = 64 * 1024

/** A sent request: its 2xx response (body unread) and how many attempts it took. */
export interface Sent {
  readonly response: HttpClientResponse.HttpClientResponse
  readonly attempts: number
}

/** A failed send: the last attempt's failure and how many attempts were made. */
export interface SendFailure {
  readonly error: AttemptError
  readonly attempts: number
}

/** What the client sends requests with. */
export interface Transport {
  /**
   * Sends `request` until a 2xx response starts, under the retry policy. The
   * request lives until the enclosing scope closes; closing it (or
   * interrupting) aborts the request. A failed attempt is aborted at once.
   */
  readonly send: (request: HttpClientRequest.HttpClientRequest) => Effect.Effect<Sent, SendFailure, Scope.Scope>
  /** A response body, each chunk awaited under the inactivity timeout. */
  readonly body: (response: HttpClientResponse.HttpClientResponse) => Stream.Stream<Uint8Array, TransportError>
  /** A whole response body as text, under the inactivity timeout. */
  readonly text: (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<string, TransportError>
}

/** The transport's settings. */
export interface TransportOptions {
  readonly retries: number
  readonly timeout: Duration.Duration
}

const requestFailure = (error: HttpClientError.HttpClientError): TransportError => {
  const url = error.request.url
  if (error._tag === "RequestError" && error.reason !== "Transport") {
    return new TransportError({ reason: "InvalidRequest", url, detail: networkErrorText(error.cause, error.message), cause: error })
  }
  return new TransportError({ reason: "Unreachable", url, detail: networkErrorText(error.cause, error.message), cause: error })
}

/** The transport on `http`, a client of the one stack (`HttpClientLive.make`). */
export const makeTransport = (
  http: HttpClient.HttpClient,
  options: TransportOptions,
  decorate: (request: HttpClientRequest.HttpClientRequest) => HttpClientRequest.HttpClientRequest
): Transport => {
  const client = HttpClient.withScope(http.pipe(HttpClient.mapRequest(decorate)))
  const waited = Duration.format(options.timeout)

  const body = (response: HttpClientResponse.HttpClientResponse): Stream.Stream<Uint8Array, TransportError> => {
    const url = response.request.url
    return response.stream.pipe(
      Stream.mapError((error) =>
        new TransportError({
          reason: "Cut",
          url,
          detail: `the connection broke off mid-response: ${networkErrorText(error.cause, error.message)}`,
          cause: error
        })
      ),
      Stream.timeoutFail(
        () => new TransportError({ reason: "Timeout", url, detail: `no data arrived for ${waited} (inactivity timeout)` }),
        options.timeout
      )
    )
  }

  const readText = (response: HttpClientResponse.HttpClientResponse, maxBytes: number) =>
    body(response).pipe(
      Stream.decodeText(),
      Stream.runFoldWhile("", (text) => text.length < maxBytes, (text, piece) => text + piece)
    )

  const text = (response: HttpClientResponse.HttpClientResponse) => readText(response, Number.POSITIVE_INFINITY)

  /** One attempt, in its own scope: closed (the request aborted) when the attempt fails. */
  const attempt = (request: HttpClientRequest.HttpClientRequest) =>
    Effect.gen(function*() {
      const scope = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.sequential)
      const once = Effect.gen(function*() {
        const response = yield* client.execute(request).pipe(
          Effect.mapError(requestFailure),
          Effect.timeoutFail({
            duration: options.timeout,
            onTimeout: () =>
              new TransportError({ reason: "Timeout", url: request.url, detail: `no response within ${waited}` })
          })
        )
        if (response.status >= 200 && response.status < 300) return response
        const said = yield* readText(response, maxErrorBody).pipe(Effect.orElseSucceed(() => ""))
        return yield* new HttpStatusError({ url: request.url, status: response.status, body: said.slice(0, maxErrorBody) })
      })
      return yield* Scope.extend(once, scope).pipe(Effect.tapErrorCause(() => Scope.close(scope, Exit.void)))
    })

  const send = (request: HttpClientRequest.HttpClientRequest): Effect.Effect<Sent, SendFailure, Scope.Scope> =>
    Effect.suspend(() => {
      let attempts = 0 // owned by this one send
      // Each attempt is its own `Client.attempt` span: a retried request shows every try and how it failed.
      const counted = Effect.suspend(() => {
        attempts++
        return attempt(request).pipe(
          Effect.withSpan("Client.attempt", { kind: "client", attributes: { "easyai.retry.attempt": attempts, "url.full": request.url } })
        )
      })
      return counted.pipe(
        withRetry(options.retries, request.url),
        Effect.map((response): Sent => ({ response, attempts })),
        Effect.mapError((error): SendFailure => ({ error, attempts }))
      )
    })

  return { send, body, text }
}
