// deploy/nginx/ run for real (issue 20): the files rendered into a temp
// directory with loopback ports and the directory's own paths in place of
// the absolute ones, every other line as deployed, and nginx started there
// as any user (nginx -p <dir> -c <dir>/nginx.conf -g 'daemon off;').

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { accepts } from './http.js';
import { ROOT } from './server.js';

export const NGINX = process.env.NGINX_PATH || '/usr/sbin/nginx';
export const DEPLOY = path.join(ROOT, 'deploy/nginx');

export interface Layout {
  /** The replicas' ports, in upstreams.conf's order: finance and arrests of each. */
  replicas: { finance: number; arrests: number }[];
  /** Where nginx listens for each service (deployed: 8080 and 8081). */
  listen: { finance: number; arrests: number };
  /** Lines added to proxy.conf (a test's own headers), and to the finance server block. */
  proxyExtra?: string;
  financeExtra?: string;
}

/** Replaces exactly `count` occurrences (or at least one when undefined), so a changed deploy file fails the render, never renders silently wrong. */
function swap(text: string, from: string | RegExp, to: string | ((m: string) => string), file: string, count?: number): string {
  const re = typeof from === 'string' ? new RegExp(from.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'), 'g') : from;
  const n = [...text.matchAll(re)].length;
  if (n === 0 || (count !== undefined && n !== count)) throw new Error(`${file}: expected ${count ?? 'some'} of ${re}, found ${n}`);
  return text.replace(re, to as string);
}

/** Each upstream block's `server host:port` lines, replaced in order by the replicas' loopback addresses (their parameters kept). */
export function renderUpstreams(text: string, replicas: Layout['replicas']): string {
  for (const service of ['finance', 'arrests'] as const) {
    const block = new RegExp(`upstream civicstream_${service} \\{[^}]*\\}`);
    const body = block.exec(text)?.[0];
    if (body === undefined) throw new Error(`upstreams.conf: no upstream civicstream_${service}`);
    let i = 0;
    const rendered = swap(body, /server \S+:\d+/g, () => `server 127.0.0.1:${replicas[i++]![service]}`, 'upstreams.conf', replicas.length);
    text = text.replace(body, rendered);
  }
  return text;
}

/** Writes nginx.conf, upstreams.conf and proxy.conf into dir, as deployed but for ports and paths. */
export function renderNginx(dir: string, l: Layout): string {
  for (const d of ['cache', 'logs']) mkdirSync(path.join(dir, d), { recursive: true });
  // nginx started as root runs its workers as nobody, who must reach the cache under dir.
  chmodSync(dir, 0o755);
  const read = (f: string): string => readFileSync(path.join(DEPLOY, f), 'utf8');
  let conf = read('nginx.conf');
  conf = swap(conf, '/var/cache/nginx/', `${dir}/cache/`, 'nginx.conf');
  conf = swap(conf, '/var/log/nginx/', `${dir}/logs/`, 'nginx.conf');
  conf = swap(conf, 'pid /run/nginx.pid;', `pid ${dir}/nginx.pid;`, 'nginx.conf', 1);
  conf = swap(conf, 'listen 8080;', `listen 127.0.0.1:${l.listen.finance};${l.financeExtra ? `\n${l.financeExtra}` : ''}`, 'nginx.conf', 1);
  conf = swap(conf, 'listen 8081;', `listen 127.0.0.1:${l.listen.arrests};`, 'nginx.conf', 1);
  writeFileSync(path.join(dir, 'nginx.conf'), conf);
  writeFileSync(path.join(dir, 'upstreams.conf'), renderUpstreams(read('upstreams.conf'), l.replicas));
  writeFileSync(path.join(dir, 'proxy.conf'), `${read('proxy.conf')}${l.proxyExtra ? `\n${l.proxyExtra}\n` : ''}`);
  return path.join(dir, 'nginx.conf');
}

const args = (dir: string): string[] => ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', path.join(dir, 'logs/error.log')];

/** `nginx -t` on the rendered files: '' when they parse, else what nginx said. */
export function checkNginx(dir: string): string {
  const r = spawnSync(NGINX, [...args(dir), '-t', '-q'], { encoding: 'utf8' });
  return r.status === 0 ? '' : `${r.stderr}${readFileSync(path.join(dir, 'logs/error.log'), 'utf8')}`;
}

/** A free loopback port, chosen up front (the replicas are restarted on theirs). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    }).on('error', reject);
  });
}

export interface Nginx {
  proc: ChildProcess;
  stop(): Promise<void>;
  /** nginx's error log and access log so far. */
  errors(): string;
  access(): string;
}

/** Starts nginx in the foreground on the rendered files; resolves once both its ports accept. */
export async function startNginx(dir: string, l: Layout): Promise<Nginx> {
  const proc = spawn(NGINX, [...args(dir), '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  proc.stderr!.on('data', (d) => { err += d; });
  const log = (f: string): string => { try { return readFileSync(path.join(dir, 'logs', f), 'utf8'); } catch { return ''; } };
  for (let i = 0; !(await accepts(l.listen.finance) && await accepts(l.listen.arrests)); i++) {
    if (proc.exitCode !== null || i > 200) { proc.kill('SIGKILL'); throw new Error(`nginx did not start: ${err}${log('error.log')}`); }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    proc,
    errors: () => log('error.log'),
    access: () => log('access.log'),
    // SIGQUIT: nginx's graceful stop, then SIGTERM (fast) if a connection holds it; never SIGKILL on the
    // master, which would leave its workers holding the ports.
    stop: () => new Promise((resolve) => {
      if (proc.exitCode !== null) { resolve(); return; }
      const fast = setTimeout(() => proc.kill('SIGTERM'), 5000);
      proc.once('exit', () => { clearTimeout(fast); resolve(); });
      proc.kill('SIGQUIT');
    }),
  };
}
