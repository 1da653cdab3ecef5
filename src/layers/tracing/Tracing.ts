/**
 * easyai's tracing: one Tracer for every program, that hands each finished
 * span to its sinks (a JSON-lines file, the verbose renderer, a test's
 * collector) and, when asked, exports it over OTLP/HTTP too.
 *
 * Span names follow one scheme, written down in docs/observability.md:
 * `<Service>.<method>` for service methods (`ChatModel.stream`,
 * `ToolRegistry.call`, …) and `<Service>.<step>` for the steps that matter
 * inside one (`Session.turn`, `Agent.hop`).
 *
 * @module
 */
import * as OtlpMetrics from "@effect/opentelemetry/OtlpMetrics"
import * as OtlpSerialization from "@effect/opentelemetry/OtlpSerialization"
import * as OtlpTracer from "@effect/opentelemetry/OtlpTracer"
import type { HttpClient } from "@effect/platform"
import { Effect, type Exit, Layer, type Scope, Tracer } from "effect"
import { closeSync, openSync, writeSync } from "node:fs"
import { errorText } from "../../domain/errorText.js"
import { ConfigurationError } from "../../domain/errors.js"
import { type RecordedEvent, type SpanRecord, toRecord } from "./SpanRecord.js"

/** Receives every finished span, synchronously, as it ends. */
export type SpanSink = (record: SpanRecord) => void

/** A span of the inner tracer, whose end also reaches the sinks. */
class RecordingSpan implements Tracer.Span {
  readonly _tag = "Span"
  private readonly events: Array<RecordedEvent> = []
  private readonly startTime: bigint

  constructor(private readonly inner: Tracer.Span, private readonly sinks: ReadonlyArray<SpanSink>) {
    this.startTime = inner.status.startTime
  }

  get name() { return this.inner.name }
  get spanId() { return this.inner.spanId }
  get traceId() { return this.inner.traceId }
  get parent() { return this.inner.parent }
  get context() { return this.inner.context }
  get status() { return this.inner.status }
  get attributes() { return this.inner.attributes }
  get links() { return this.inner.links }
  get sampled() { return this.inner.sampled }
  get kind() { return this.inner.kind }

  end(endTime: bigint, exit: Exit.Exit<unknown, unknown>): void {
    this.inner.end(endTime, exit)
    const record = toRecord(this, this.startTime, endTime, exit, this.events)
    for (const sink of this.sinks) {
      // Tracing never breaks the work it traces: a sink that throws (a full disk) loses its record, nothing more.
      try {
        sink(record)
      } catch {
        continue
      }
    }
  }

  attribute(key: string, value: unknown): void {
    this.inner.attribute(key, value)
  }

  event(name: string, startTime: bigint, attributes?: Record<string, unknown>): void {
    this.events.push({ name, time: startTime, attributes })
    this.inner.event(name, startTime, attributes)
  }

  addLinks(links: ReadonlyArray<Tracer.SpanLink>): void {
    this.inner.addLinks(links)
  }
}

/** `inner`, with every span it makes handed to `sinks` when it ends. */
export const recording = (inner: Tracer.Tracer, sinks: ReadonlyArray<SpanSink>): Tracer.Tracer =>
  sinks.length === 0 ? inner : Tracer.make({
    span: (name, parent, context, links, startTime, kind, options) =>
      new RecordingSpan(inner.span(name, parent, context, links, startTime, kind, options), sinks),
    context: inner.context
  })

/** The tracer in place, with every span it makes handed to `sinks` when it ends. */
export const recordingLayer = (sinks: ReadonlyArray<SpanSink>): Layer.Layer<never> =>
  Layer.unwrapEffect(Effect.map(Effect.tracer, (inner) => Layer.setTracer(recording(inner, sinks))))

/**
 * A sink appending each span as one JSON line to `path` (created when
 * missing), for the life of the scope. A span ends synchronously, so its
 * line is written synchronously: nothing is buffered that a crash could lose.
 */
export const fileSink = (path: string): Effect.Effect<SpanSink, ConfigurationError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.try({
      try: () => openSync(path, "a"),
      catch: (error) => new ConfigurationError({
        message: `cannot open the trace file ${path}: ${errorText(error)}`
      })
    }),
    (fd) => Effect.sync(() => closeSync(fd))
  ).pipe(Effect.map((fd): SpanSink => (record) => {
    writeSync(fd, `${JSON.stringify(record)}\n`)
  }))

/** Where spans go. */
export interface Options {
  /** A JSON-lines file every span is appended to. */
  readonly traceFile?: string
  /** An OTLP/HTTP collector's base URL (`/v1/traces` and `/v1/metrics` are appended). */
  readonly otlp?: string
  /** More sinks: the verbose renderer, a test's collector. */
  readonly sinks?: ReadonlyArray<SpanSink>
  /** The `service.name` of the exported resource. Default `easyai`. */
  readonly serviceName?: string
  /** The `service.version` of the exported resource. */
  readonly serviceVersion?: string
}

/**
 * The Tracer `options` describe, installed for whatever the layer is
 * provided to; with nothing asked for, the default tracer stays. Spans and
 * metrics bound for OTLP are flushed when the scope closes.
 */
export const layer = (options: Options): Layer.Layer<never, ConfigurationError, HttpClient.HttpClient> =>
  Layer.unwrapScoped(Effect.gen(function*() {
    // The file first: a span is on disk before any other sink has shown it.
    const sinks: Array<SpanSink> = [
      ...(options.traceFile === undefined ? [] : [yield* fileSink(options.traceFile)]),
      ...(options.sinks ?? [])
    ]
    const resource = {
      serviceName: options.serviceName ?? "easyai",
      ...(options.serviceVersion === undefined ? {} : { serviceVersion: options.serviceVersion })
    }
    if (options.otlp === undefined) {
      return sinks.length === 0 ? Layer.empty : recordingLayer(sinks)
    }
    const base = options.otlp.replace(/\/+$/, "")
    const exported = Effect.gen(function*() {
      const inner = yield* OtlpTracer.make({ url: `${base}/v1/traces`, resource })
      return Layer.merge(
        Layer.setTracer(recording(inner, sinks)),
        OtlpMetrics.layer({ url: `${base}/v1/metrics`, resource })
      )
    })
    return Layer.unwrapScoped(exported).pipe(Layer.provide(OtlpSerialization.layerJson))
  }))
