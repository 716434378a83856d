// Steady load through a proxy, every answer checked whole: keep-alive
// clients looping over paths until told to stop, each answer recorded with
// when it ran, which replica answered (a header the test's nginx adds from
// $upstream_addr: "a, b" when nginx retried on b) and whether it is whole: a
// success envelope, or a CSV page with exactly the rows its paging headers
// promise, ending in a full record.

import http from 'node:http';

export interface Answer {
  path: string;
  /** performance.now() at the request and at the answer's end (or failure). */
  t0: number;
  t1: number;
  status: number;
  /** $upstream_addr as nginx reports it ('' for a cache hit). */
  upstream: string;
  cache: string;
  ok: boolean;
  /** Why it is not whole: a status, a socket error, rows short. */
  why: string;
  csvRows?: number;
  bytes: number;
}

/** The rows a CSV page holds by its paging headers. */
export const pageRows = (h: http.IncomingHttpHeaders): number =>
  Math.max(0, Math.min(Number(h['x-limit']), Number(h['x-total-count']) - Number(h['x-page']) * Number(h['x-limit'])));

/** Checks a finished body: a JSON success envelope, or a whole CSV page. */
function whole(path: string, status: number, h: http.IncomingHttpHeaders, body: Buffer): { why: string; csvRows?: number } {
  if (status !== 200) return { why: `HTTP ${status}: ${body.subarray(0, 200).toString()}` };
  if (String(h['content-type']).startsWith('text/csv')) {
    const text = body.toString('utf8');
    const rows = text.split('\r\n').length - 2;
    if (!text.endsWith('\r\n') || rows !== pageRows(h)) return { why: `CSV ${rows} rows of ${pageRows(h)}`, csvRows: rows };
    return { why: '', csvRows: rows };
  }
  try {
    const env = JSON.parse(body.toString('utf8')) as { status?: string };
    return { why: env.status === 'success' ? '' : `envelope ${env.status}` };
  } catch {
    return { why: `not JSON (${body.length} bytes) for ${path}` };
  }
}

/** One GET on agent (false: a connection of its own), recorded; never rejects. */
export function getOnce(base: string, path: string, agent: http.Agent | false, headers: Record<string, string> = {}): Promise<Answer & { body: Buffer; headers: http.IncomingHttpHeaders }> {
  const u = new URL(base);
  const t0 = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const done = (status: number, h: http.IncomingHttpHeaders, body: Buffer, err: string): void => {
      if (settled) return;
      settled = true;
      const w = err === '' ? whole(path, status, h, body) : { why: err };
      resolve({
        path, t0, t1: performance.now(), status, upstream: String(h['x-test-upstream'] ?? ''), cache: String(h['x-cache-status'] ?? ''),
        ok: w.why === '', why: w.why, ...(w.csvRows !== undefined ? { csvRows: w.csvRows } : {}), bytes: body.length, body, headers: h,
      });
    };
    http.get({ host: u.hostname, port: u.port, path, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => done(res.statusCode ?? 0, res.headers, Buffer.concat(chunks), res.complete ? '' : 'incomplete'));
      res.on('error', (e) => done(res.statusCode ?? 0, res.headers, Buffer.concat(chunks), `body: ${e.message}`));
      res.on('close', () => done(res.statusCode ?? 0, res.headers, Buffer.concat(chunks), res.complete ? '' : 'closed before the end'));
    }).on('error', (e) => done(0, {}, Buffer.alloc(0), `request: ${e.message}`));
  });
}

export interface Load {
  answers: Answer[];
  /** Resolves at the first answer from now on for which pred holds; rejects if none of the next `within` does. */
  until(pred: (a: Answer) => boolean, within?: number): Promise<void>;
  stop(): Promise<Answer[]>;
}

/** Clients, each a keep-alive connection looping over its paths (next() gives a fresh one each time) until stop(). */
export function startLoad(clients: { base: string; next: () => string }[]): Load {
  const answers: Answer[] = [];
  const waiters: { pred: (a: Answer) => boolean; left: number; resolve: () => void; reject: (e: Error) => void }[] = [];
  let stopping = false;
  const loops = clients.map(async (c) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    while (!stopping) {
      const { body: _b, headers: _h, ...a } = await getOnce(c.base, c.next(), agent);
      answers.push(a);
      for (const w of waiters.splice(0)) {
        if (w.pred(a)) w.resolve();
        else if (--w.left === 0) w.reject(new Error(`no answer met the condition in ${answers.length} answers; the last: ${JSON.stringify(a)}`));
        else waiters.push(w);
      }
    }
    agent.destroy();
  });
  return {
    answers,
    until: (pred, within = 50_000) => new Promise((resolve, reject) => { waiters.push({ pred, left: within, resolve, reject }); }),
    stop: async () => { stopping = true; await Promise.all(loops); return answers; },
  };
}
