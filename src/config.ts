// Configuration by environment, declared as a table so the README and the
// CLI flags can be checked against it.

import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseTrustedProxies } from './ip-address.js';

export const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Config {
  financePort: number;
  arrestsPort: number;
  host: string;
  financeData: string;
  arrestsData: string;
  workers: number;
  /** Threads serving the finance API on its one port (src/front.ts); 1 serves it on the main thread. */
  frontThreads: number;
  mirrorUrl: string | null;
  arrestsMirrorUrl: string | null;
  accessLog: boolean;
  responseCacheMb: number;
  shutdownGraceMs: number;
  /** Tokens a second refilled to each client's bucket (rate-stage.ts); 0 turns the limits off. */
  rateLimit: number;
  rateLimitBurst: number;
  /** Comma-separated addresses and CIDR ranges of proxies whose X-Forwarded-For names the client. */
  trustProxy: string;
  /** On SIGTERM: answer normally this long, /readyz already 503, before the listening sockets close. */
  shutdownDelayMs: number;
  poolQueue: number;
  requestTimeoutMs: number;
  csvPageSlots: number;
  /** Open connections past which the listening sockets close until they drop (src/server/conn-gate.ts); null: from the descriptor limit. */
  maxConnections: number | null;
  /** Start on a port another instance already serves (SO_REUSEPORT), splitting its connections. */
  sharePort: boolean;
  /** The worker-fault test hook (CIVICSTREAM_FAULTS=1); not a user setting, so not in CONFIG_VARS. */
  testFaults: boolean;
  /** Build the bulk files in the background after start when no set is found (src/finance/http/bulk-start.ts). */
  bulkBuild: boolean;
  /**
   * This thread finds, checks and builds the bulk files, and the other front threads follow it: the main
   * thread, or front thread 0 (main.ts frontShare). Not a user setting, so not in CONFIG_VARS.
   */
  bulkOwner: boolean;
}

export interface ConfigVar {
  env: string;
  default: string;
  description: string;
}

export const CONFIG_VARS: ConfigVar[] = [
  { env: 'FINANCE_PORT', default: '8080', description: 'Port of the finance API (0 picks a free port).' },
  { env: 'ARRESTS_PORT', default: '8081', description: 'Port of the school arrest-rate estimates API.' },
  { env: 'HOST', default: '127.0.0.1', description: 'Address both services listen on (0.0.0.0 in the container).' },
  { env: 'FINANCE_DATA', default: 'fixtures/finance/v6', description: 'Finance mirror directory (manifest.json, data/long/year=YYYY/part-0.parquet, metadata tables).' },
  { env: 'ARRESTS_DATA', default: 'fixtures/arrests', description: 'School arrest-rate draws mirror directory.' },
  { env: 'WORKERS', default: 'the core count', description: 'Worker threads in the pool, shared out among the front threads (at least one each; start-up decodes the mirror on every core whatever this is).' },
  { env: 'FRONT_THREADS', default: 'the core count', description: 'Threads serving the finance API on its one port, each with its own share of the pool, its queue, the response cache and the CSV page slots, running the small jobs (one government\'s history) itself; 1 serves it on the main thread, every job on the pool.' },
  { env: 'MIRROR_URL', default: 'absolute path of FINANCE_DATA', description: 'Public mirror address written into provenance SQL.' },
  { env: 'ARRESTS_MIRROR_URL', default: 'absolute path of ARRESTS_DATA', description: 'Mirror address of the school draws written into /draws answers and provenance SQL.' },
  { env: 'RESPONSE_CACHE_MB', default: '64', description: 'Memory for cached answers: JSON envelopes, and compressed bulk pages once streamed whole (the data is immutable, so an answer is reused until the process ends); 0 turns it off.' },
  { env: 'POOL_QUEUE', default: '64', description: 'Jobs that may wait for a worker; past that a request is answered 503 with Retry-After at once instead of waiting without bound. Bulk jobs may take three quarters of WORKERS + POOL_QUEUE; the last quarter is kept for small jobs (one government).' },
  { env: 'CSV_PAGE_SLOTS', default: '12', description: 'Slots of shared memory (10 MB each, resident once written) that workers write CSV pages into; each CSV stream holds one to its end, so this is also the cap on concurrent CSV streams and their memory: with every slot held a pull is answered 503 with Retry-After. Shared out among the front threads, at least one each.' },
  { env: 'REQUEST_TIMEOUT_MS', default: '30000', description: 'Time budget of a request until its answer starts; past it a 504 envelope, and its job is cancelled.' },
  { env: 'SHUTDOWN_DELAY_MS', default: '2000', description: 'On SIGTERM: /readyz answers 503 at once, and the server goes on answering for this long before its listening sockets close, so a load balancer that polls /readyz (or a Kubernetes endpoint update) stops sending first. SIGINT (Ctrl-C) closes at once.' },
  { env: 'SHUTDOWN_GRACE_MS', default: '10000', description: 'On SIGTERM (after SHUTDOWN_DELAY_MS) or SIGINT: stop listening, then wait this long at most for the requests in flight to be answered before exiting.' },
  { env: 'MAX_CONNECTIONS', default: 'three quarters of the free descriptors', description: 'Open connections (both services) past which the server stops accepting: its listening sockets close, so new clients are refused at once instead of waiting on a server spinning at the descriptor limit, and reopen below 90% of it. By default three quarters of the descriptors the process may still open at start (ulimit -n).' },
  { env: 'SHARE_PORT', default: 'false', description: 'true: start even when another civicstream already serves the port, and let the kernel spread connections over both (this uWS build listens with SO_REUSEPORT). By default such a start is refused, naming the port, so that a second instance never silently takes half the traffic.' },
  { env: 'BULK_BUILD', default: 'true', description: 'Build the bulk files (/api/v1/bulk: each published year of spending and revenue as Parquet and gzip CSV) in the background after start, unless a set built from this manifest is found beside the mirror (civicstream bulk) or in the cache; false serves only a set found, and lists the rest as unavailable.' },
  { env: 'RATE_LIMIT', default: '100', description: 'Requests a second each client may make, per service, as a token bucket (0 turns the limits off). A request costs 1 token; a bulk page (CSV, Arrow or Parquet of /spending or /revenue) 1 more per 10,000 rows it asks for (limit, or the cap when none is given: a 50,000-row page costs 6), a bulk file 1 more per 10 MB it sends (the range it honours; HEAD 1). Past the limit a 429 envelope with Retry-After; every charged answer carries RateLimit-Policy and RateLimit. /livez, /readyz and /metrics are never charged.' },
  { env: 'RATE_LIMIT_BURST', default: '500', description: 'The bucket\'s size: the tokens a client that has been idle may spend at once before RATE_LIMIT paces it.' },
  { env: 'TRUST_PROXY', default: 'none', description: 'Comma-separated addresses and CIDR ranges (127.0.0.1, 10.0.0.0/8, fd00::/8) of the proxies in front of the server: a request from one of them is charged to the right-most address of X-Forwarded-For that is not itself a trusted proxy. From any other peer X-Forwarded-For is ignored and the socket\'s address is the client, so a client cannot pick its own bucket.' },
  { env: 'ACCESS_LOG', default: 'true', description: 'One JSON line per request on stdout (no query values).' },
];

function int(env: NodeJS.ProcessEnv, name: string, dflt: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return dflt;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be an integer from ${min} to ${max}; got '${raw}'.`);
  return n;
}

function bool(env: NodeJS.ProcessEnv, name: string, dflt: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return dflt;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new Error(`${name} must be true or false; got '${raw}'.`);
}

const dataDir = (raw: string | undefined, dflt: string): string =>
  raw === undefined || raw === '' ? path.join(PROJECT_ROOT, dflt) : path.resolve(raw);

function testFaults(env: NodeJS.ProcessEnv): boolean {
  if (env.CIVICSTREAM_FAULTS !== '1') return false;
  if (env.NODE_ENV === 'production') throw new Error('CIVICSTREAM_FAULTS=1 is a test hook and cannot be enabled with NODE_ENV=production.');
  return true;
}

/** TRUST_PROXY, checked at start: a bad entry is refused naming it, never a proxy silently untrusted. */
function trustProxy(env: NodeJS.ProcessEnv): string {
  const raw = env.TRUST_PROXY ?? '';
  try {
    parseTrustedProxies(raw);
  } catch (err) {
    throw new Error(`TRUST_PROXY: ${err instanceof Error ? err.message : String(err)}`);
  }
  return raw;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    financePort: int(env, 'FINANCE_PORT', 8080, 0, 65535),
    arrestsPort: int(env, 'ARRESTS_PORT', 8081, 0, 65535),
    host: env.HOST || '127.0.0.1',
    financeData: dataDir(env.FINANCE_DATA, 'fixtures/finance/v6'),
    arrestsData: dataDir(env.ARRESTS_DATA, 'fixtures/arrests'),
    workers: int(env, 'WORKERS', os.availableParallelism(), 1, 256),
    frontThreads: int(env, 'FRONT_THREADS', os.availableParallelism(), 1, 64),
    mirrorUrl: env.MIRROR_URL || null,
    arrestsMirrorUrl: env.ARRESTS_MIRROR_URL || null,
    accessLog: bool(env, 'ACCESS_LOG', true),
    responseCacheMb: int(env, 'RESPONSE_CACHE_MB', 64, 0, 65536),
    shutdownGraceMs: int(env, 'SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    shutdownDelayMs: int(env, 'SHUTDOWN_DELAY_MS', 2000, 0, 600_000),
    rateLimit: int(env, 'RATE_LIMIT', 100, 0, 1_000_000),
    rateLimitBurst: int(env, 'RATE_LIMIT_BURST', 500, 1, 2_000_000),
    trustProxy: trustProxy(env),
    poolQueue: int(env, 'POOL_QUEUE', 64, 0, 100_000),
    requestTimeoutMs: int(env, 'REQUEST_TIMEOUT_MS', 30_000, 1, 3_600_000),
    csvPageSlots: int(env, 'CSV_PAGE_SLOTS', 12, 1, 1024),
    maxConnections: env.MAX_CONNECTIONS === undefined || env.MAX_CONNECTIONS === '' ? null : int(env, 'MAX_CONNECTIONS', 0, 16, 1_000_000),
    sharePort: bool(env, 'SHARE_PORT', false),
    testFaults: testFaults(env),
    bulkBuild: bool(env, 'BULK_BUILD', true),
    bulkOwner: true,
  };
}
