// GET /metrics: the Prometheus text exposition of one service, from its board
// (telemetry.ts) summed over every thread that serves it, written by
// prom-client's registry (its escaping, its content type). The series are
// read from shared memory when the scrape asks, so they are registered as
// prom-client metric objects whose get() reads the board, not as counters
// this thread increments: the other threads' requests would not be in them.
//
// Names and units follow the Prometheus conventions (seconds, bytes, _total
// for counters); the request duration is OpenTelemetry's
// http.server.request.duration with its advised buckets.

import { Registry, type MetricValueWithName } from 'prom-client';
import {
  BODY_FORMATS, BoardReader, DURATION_BUCKETS, ENCODINGS, MAX_ROUTES, METHODS, ROUTE_SERIES_COUNT, STATUS_CLASSES,
  loopDelay, shareBoards, telemetry, type Scalar, type ServiceSample, type ThreadSample,
} from './telemetry.js';

export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/** What a service says of itself for /metrics: its corpus and build. */
export interface ServiceInfo {
  rows: number;
  build: Record<string, string>;
}

type Value = MetricValueWithName<string>;
type Values = Value[];
const BUCKET = 'http_server_request_duration_seconds_bucket';
/** Each bucket's le label, made once. */
const LE = [...DURATION_BUCKETS.map((b) => ({ le: b })), { le: '+Inf' }];
interface Def { name: string; help: string; type: 'counter' | 'gauge' | 'histogram'; values: Values }

/** This thread's own figures: written to its slot before a scrape reads the board, and each second by the sampler. */
export function threadSample(reset: boolean): ThreadSample {
  const heap = process.memoryUsage();
  const l = loopDelay(reset);
  return { loopP99: l.p99, loopMean: l.mean, loopMax: l.max, heapUsed: heap.heapUsed, heapTotal: heap.heapTotal };
}

const timers = new Map<string, NodeJS.Timeout>();

/** Writes a service's gauges on this thread once a second (a busy thread writes them when it gets to it). */
export function startSampler(name: string, sample: () => ServiceSample): void {
  if (timers.has(name)) return;
  const tick = (): void => telemetry(name).publish(sample(), threadSample(true));
  tick();
  const t = setInterval(tick, 1000);
  t.unref();
  timers.set(name, t);
}

/** The exposition of service `name`, whose routes are `routeIds` in table order. */
export async function metricsText(name: string, routeIds: readonly string[], sample: ServiceSample, info: ServiceInfo): Promise<string> {
  telemetry(name).publish(sample, threadSample(false));
  const board = new BoardReader(shareBoards()[name]!);
  const defs = [...requestDefs(board, routeIds), ...gaugeDefs(board, info)];
  const registry = new Registry();
  for (const d of defs) {
    // A metric object as prom-client's registry reads one: its get() gives the values, already summed over the threads.
    registry.registerMetric({ name: d.name, help: d.help, type: d.type, aggregator: 'sum', collect: () => {}, get: () => ({ ...d, aggregator: 'sum' }) } as never);
  }
  return registry.metrics();
}

const routeLabel = (routeIds: readonly string[], r: number): string => (r === MAX_ROUTES ? 'asset' : r === MAX_ROUTES + 1 ? 'unmatched' : routeIds[r] ?? 'other');

function requestDefs(board: BoardReader, routeIds: readonly string[]): Def[] {
  const buckets: Values = [];
  for (let r = 0; r < ROUTE_SERIES_COUNT; r++) {
    if (!board.routeSeen(r)) continue;
    const route = routeLabel(routeIds, r);
    for (let m = 0; m < METHODS.length; m++) {
      for (let c = 0; c < STATUS_CLASSES.length; c++) {
        const s = board.series(r, m, c);
        let count = 0;
        for (let k = 0; k <= DURATION_BUCKETS.length; k++) count += s[k]!;
        if (count === 0) continue;
        // As prom-client's own Histogram writes them: the series' labels shared by its lines (the registry
        // formats them once per object), each bucket's le its own; le first.
        const labels = { route, method: METHODS[m]!, status_class: STATUS_CLASSES[c]! };
        let cum = 0;
        for (let k = 0; k < DURATION_BUCKETS.length; k++) {
          cum += s[k]!;
          buckets.push({ metricName: BUCKET, labels: LE[k]!, sharedLabels: labels, value: cum } as Value);
        }
        buckets.push({ metricName: BUCKET, labels: LE[DURATION_BUCKETS.length]!, sharedLabels: labels, value: count } as Value);
        buckets.push({ metricName: 'http_server_request_duration_seconds_sum', labels: {}, sharedLabels: labels, value: s[DURATION_BUCKETS.length + 1]! } as Value);
        buckets.push({ metricName: 'http_server_request_duration_seconds_count', labels: {}, sharedLabels: labels, value: count } as Value);
      }
    }
  }
  const bytes: Values = [];
  for (let f = 0; f < BODY_FORMATS.length; f++) {
    for (let e = 0; e < ENCODINGS.length; e++) {
      const v = board.bytes(f, e);
      if (v > 0) bytes.push({ labels: { format: BODY_FORMATS[f]!, encoding: ENCODINGS[e]! }, value: v });
    }
  }
  return [
    { name: 'http_server_request_duration_seconds', help: 'Time from a request\'s arrival to the end of its answer (the last byte of a stream), by route id, method and status class; aborted: the client left first.', type: 'histogram', values: buckets },
    { name: 'http_server_response_body_bytes_total', help: 'Body bytes written to clients, by body format and content coding.', type: 'counter', values: bytes },
    counter(board, 'civicstream_response_cache_lookups_total', 'Response-cache lookups of cacheable requests, by result.', [['result', 'hit', 'cacheHit'], ['result', 'miss', 'cacheMiss']]),
    counter(board, 'civicstream_requests_refused_total', 'Requests answered 429 (over the client\'s rate limit), 503 (pool or page slots at capacity, or draining) or 504 (past the time budget).', [['status', '429', 'refused429'], ['status', '503', 'refused503'], ['status', '504', 'refused504']]),
    counter(board, 'civicstream_jobs_total', 'Jobs run: inline, by the answering thread itself (one government\'s history); pool, by a worker.', [['where', 'inline', 'jobsInline'], ['where', 'pool', 'jobsPool']]),
    counter(board, 'civicstream_worker_busy_seconds_total', 'Time the pool\'s workers spent running jobs.', [[null, '', 'workerBusySeconds']]),
  ];
}

function counter(board: BoardReader, name: string, help: string, cells: [string | null, string, Scalar][]): Def {
  return { name, help, type: 'counter', values: cells.map(([label, value, cell]) => ({ labels: label === null ? {} : { [label]: value }, value: board.sum(cell) })) };
}

/** The gauges summed over the threads, and those reported per thread: name, help, the board's cell. */
const TOTALS: [string, string, Scalar][] = [
  ['http_server_active_requests', 'Requests received and not yet answered to their end.', 'inFlight'],
  ['civicstream_open_streams', 'Answers streaming now (bulk pages, files).', 'openStreams'],
  ['civicstream_pool_queue_depth', 'Jobs waiting for a worker.', 'poolWaiting'],
  ['civicstream_pool_jobs', 'Jobs running or waiting for a worker (what the 503 cap counts).', 'poolJobs'],
  ['civicstream_pool_workers', 'Live worker threads of the pools.', 'poolWorkers'],
  ['civicstream_pool_capacity', 'Jobs that may run or wait (WORKERS + POOL_QUEUE); past it, 503.', 'poolCapacity'],
  ['civicstream_csv_page_slots_in_use', 'Page slots held by bulk streams now.', 'slotsInUse'],
  ['civicstream_csv_page_slots', 'Page slots (CSV_PAGE_SLOTS): the cap on concurrent bulk streams.', 'slotsTotal'],
];
const PER_THREAD: [string, string, Scalar][] = [
  ['nodejs_eventloop_lag_p99_seconds', 'The 99th percentile of the event loop\'s delay over the last second, per serving thread.', 'loopP99'],
  ['nodejs_eventloop_lag_mean_seconds', 'The mean event-loop delay over the last second, per serving thread.', 'loopMean'],
  ['nodejs_eventloop_lag_max_seconds', 'The longest event-loop delay in the last second, per serving thread.', 'loopMax'],
  ['nodejs_heap_size_used_bytes', 'V8 heap in use, per serving thread.', 'heapUsed'],
];

/** Gauges per thread (label thread: front thread index, or main), and the process's. */
function gaugeDefs(board: BoardReader, info: ServiceInfo): Def[] {
  const perThread = (name: string, help: string, cell: Scalar): Def => {
    const values: Values = [];
    for (let s = 0; s < board.slots; s++) {
      const v = board.scalar(s, cell);
      if (v !== null) values.push({ labels: { thread: board.slots === 1 ? 'main' : String(s) }, value: v });
    }
    return { name, help, type: 'gauge', values };
  };
  const total = (name: string, help: string, cell: Scalar): Def => ({ name, help, type: 'gauge', values: [{ labels: {}, value: board.sum(cell) }] });
  const mem = process.memoryUsage();
  return [
    ...TOTALS.map(([name, help, cell]) => total(name, help, cell)),
    ...PER_THREAD.map(([name, help, cell]) => perThread(name, help, cell)),
    { name: 'process_resident_memory_bytes', help: 'Resident memory of the whole process (every thread, the shared corpus included).', type: 'gauge', values: [{ labels: {}, value: mem.rss }] },
    { name: 'nodejs_external_memory_bytes', help: 'Memory of ArrayBuffers and other objects outside the V8 heap of the answering thread (the shared corpus columns are counted once per process).', type: 'gauge', values: [{ labels: {}, value: mem.external }] },
    { name: 'civicstream_corpus_rows', help: 'Rows of the corpus this service serves.', type: 'gauge', values: [{ labels: {}, value: info.rows }] },
    { name: 'civicstream_build_info', help: 'The build and corpus being served (value 1).', type: 'gauge', values: [{ labels: info.build, value: 1 }] },
  ];
}
