import type { CallTracer } from './call-tracer.js';

/**
 * OpenTelemetry tracing to an OTLP/HTTP collector: one span per request, carrying its request id.
 * The SDK (several MiB of modules) is imported only here, and this module only when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set: a node without it loads and pays nothing.
 */
export async function startOtelTracer(options: {
  endpoint: string;
  serviceName: string;
  nodeId: string;
}): Promise<CallTracer> {
  const [{ NodeSDK, tracing, api }, { OTLPTraceExporter }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
  ]);
  const exporter = new OTLPTraceExporter({ url: `${options.endpoint}/v1/traces` });
  const sdk = new NodeSDK({
    serviceName: options.serviceName,
    // Only the spans made below: no auto-instrumentation patching http or the database drivers.
    instrumentations: [],
    autoDetectResources: false,
    spanProcessors: [new tracing.BatchSpanProcessor(exporter)],
  });
  sdk.start();
  const tracer = api.trace.getTracer('switchyard');
  return {
    call(c) {
      const span = tracer.startSpan(`${c.method} ${c.route}`, {
        kind: api.SpanKind.SERVER,
        startTime: c.startMs,
        attributes: {
          'switchyard.request_id': c.requestId,
          'switchyard.node': options.nodeId,
          'http.request.method': c.method,
          'http.route': c.route,
          'http.response.status_code': c.status,
          ...(c.model ? { 'gen_ai.request.model': c.model } : {}),
          ...(c.channel ? { 'switchyard.channel_id': c.channel } : {}),
        },
      });
      if (c.status >= 500) span.setStatus({ code: api.SpanStatusCode.ERROR });
      span.end(c.endMs);
    },
    async close() {
      await sdk.shutdown();
    },
  };
}
