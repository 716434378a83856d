// One JSON line per request on stdout. Query values are deliberately not
// logged: only the route path.

export interface LogEntry {
  requestId: string;
  method: string;
  path: string;
  status: number;
  started: number;
  bytes: number;
  aborted?: boolean;
}

export function logRequest(service: { name: string; accessLog: boolean }, e: LogEntry): void {
  if (!service.accessLog) return;
  process.stdout.write(
    `${JSON.stringify({
      time: new Date().toISOString(),
      service: service.name,
      request_id: e.requestId,
      method: e.method.toUpperCase(),
      path: e.path.length > 200 ? e.path.slice(0, 200) : e.path,
      status: e.status,
      duration_ms: Math.round((performance.now() - e.started) * 1000) / 1000,
      bytes: e.bytes,
      ...(e.aborted ? { aborted: true } : {}),
    })}\n`,
  );
}
