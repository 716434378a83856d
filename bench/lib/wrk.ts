// wrk (Debian's package) as the load generator where the body's bytes must
// not cost the client: autocannon appends every response body to a string
// (req.body += data, a UTF-8 decode), and on a gzip body, which is binary,
// that decode is its slow path: 39 against 22 us of client CPU a request for
// the same answers (bench/results/bulk.md). On two shared cores that cost is
// taken from the server, so a coded answer measured by autocannon looked 40%
// slower than identity when the server's own cost differed by 4 us.

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The wrk binary, or null when it is not installed (apt-get install wrk). */
export function wrkPath(): string | null {
  const r = spawnSync('sh', ['-c', 'command -v wrk'], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() !== '' ? r.stdout.trim() : null;
}

/** Requests a second of wrk (one thread, `connections`) cycling through `paths`, with the given request headers. */
export function wrkRate(url: string, paths: string[], o: { connections: number; seconds: number; headers?: Record<string, string> }): number {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'civicstream-wrk-'));
  try {
    const script = path.join(dir, 'paths.lua');
    // Paths are URL-safe text here (ids and query keys); quoted as Lua long strings all the same.
    writeFileSync(script, `local p = {${paths.map((x) => `[[${x}]]`).join(',')}}\nlocal i = 0\nrequest = function() i = i + 1; return wrk.format(nil, p[(i % #p) + 1]) end\n`);
    const headerArgs = Object.entries(o.headers ?? {}).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);
    const out = execFileSync('wrk', ['-t1', `-c${o.connections}`, `-d${o.seconds}s`, '-s', script, ...headerArgs, url], { encoding: 'utf8' });
    const m = /Requests\/sec:\s+([\d.]+)/.exec(out);
    if (m === null) throw new Error(`wrk printed no rate:\n${out}`);
    if (/Non-2xx or 3xx responses/.test(out)) throw new Error(`wrk got error answers:\n${out}`);
    return Number(m[1]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
