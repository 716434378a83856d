// Golden answers (issue 18): the answers of both services to the requests in
// test/golden/urls.txt, recorded once from the code before a refactor, must
// stay byte-identical after it. Each answer is kept as its status, the headers
// that matter and the sha256 and length of its body (test/golden/answers.json).
//
//   compare (npm test):  npx vitest run test/golden.test.ts
//   re-record:           GOLDEN_RECORD=1 npx vitest run test/golden.test.ts
//   dump the bodies:     GOLDEN_DUMP=/tmp/golden-new npx vitest run test/golden.test.ts
//                        (one file per line, NNN.body, and index.txt; dump the old code's too and diff -r)
//
// The test starts its own server with a fixed mirror address (provenance SQL,
// /draws and the ETags embed it; its default is the absolute data path) and
// sends a fixed Host header (/examples echoes it), over node:http so that any
// method, path and header goes out exactly as written.

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type Running } from './helpers/server.js';

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'golden');
const URLS = path.join(DIR, 'urls.txt');
const ANSWERS = path.join(DIR, 'answers.json');
const RECORD = process.env.GOLDEN_RECORD === '1';
const DUMP = process.env.GOLDEN_DUMP;

const HOST = 'golden.invalid';
const SERVER_ENV = {
  MIRROR_URL: 'https://golden.invalid/finance',
  ARRESTS_MIRROR_URL: 'https://golden.invalid/arrests',
  WORKERS: '2',
  // Only a safety margin on a busy machine: no request in the list should come near it.
  REQUEST_TIMEOUT_MS: '300000',
};
const CONCURRENCY = 4;
const SHOWN = 20;

/** Headers compared; everything else (x-request-id, x-cache, date, content-length, transfer-encoding, uWebSockets) is not. */
const KEPT = /^(content-type|x-content-type-options|x-total-count|x-page|x-limit|etag|cache-control|allow|retry-after|content-disposition|content-encoding|content-language|link|location|vary|access-control-.*)$/;

type Service = 'finance' | 'arrests';

interface Line {
  /** The line as written (whitespace collapsed): the key in answers.json. */
  key: string;
  service: Service;
  /** `~`: only status and content-type are compared (answers that vary run to run). */
  loose: boolean;
  method: string;
  path: string;
  headers: Record<string, string>;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  bytes?: number;
  sha256?: string;
  loose?: true;
  /** A transport error instead of an answer (the error code). */
  error?: string;
}

interface Got {
  answer: Answer;
  body: Buffer;
}

/** `{repeat:N:text}` stands for text N times (the over-long URL and header lines). */
const expand = (s: string): string => s.replace(/\{repeat:(\d+):([^}]*)\}/g, (_m, n: string, t: string) => t.repeat(Number(n)));

/**
 * One request a line: `SERVICE [~] [METHOD] PATH [Header=value ...]`. SERVICE
 * is finance or arrests, METHOD defaults to GET, PATH is sent as written.
 * Blank lines and lines starting with # are comments.
 */
function parseUrls(text: string): Line[] {
  const out: Line[] = [];
  const seen = new Set<string>();
  text.split('\n').forEach((raw, n) => {
    const t = raw.trim();
    if (t === '' || t.startsWith('#')) return;
    const tok = t.split(/\s+/);
    const where = `urls.txt line ${n + 1}`;
    const service = tok.shift() as Service;
    if (service !== 'finance' && service !== 'arrests') throw new Error(`${where}: service must be finance or arrests: ${t}`);
    let loose = false;
    if (tok[0] === '~') { loose = true; tok.shift(); }
    const method = tok[0] !== undefined && /^[A-Z]+$/.test(tok[0]) ? tok.shift()! : 'GET';
    const p = tok.shift();
    if (p === undefined || !p.startsWith('/')) throw new Error(`${where}: no path: ${t}`);
    const headers: Record<string, string> = {};
    for (const h of tok) {
      const eq = h.indexOf('=');
      if (eq <= 0) throw new Error(`${where}: a header is Name=value: ${h}`);
      headers[h.slice(0, eq)] = expand(h.slice(eq + 1));
    }
    const key = t.replace(/\s+/g, ' ');
    if (seen.has(key)) throw new Error(`${where}: listed twice: ${key}`);
    seen.add(key);
    out.push({ key, service, loose, method, path: expand(p), headers });
  });
  return out;
}

function send(port: number, agent: http.Agent, line: Line, retry = true): Promise<Got> {
  return new Promise((resolve) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: line.method, path: line.path, agent, headers: { Host: HOST, ...line.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('error', (e: NodeJS.ErrnoException) => resolve({ answer: { status: res.statusCode ?? 0, headers: {}, error: e.code ?? e.message }, body: Buffer.alloc(0) }));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          const headers: Record<string, string> = {};
          for (const k of Object.keys(res.headers).sort()) {
            if (KEPT.test(k) || (line.method === 'HEAD' && k === 'content-length')) headers[k] = String(res.headers[k]);
          }
          const status = res.statusCode ?? 0;
          const answer: Answer = line.loose
            ? { loose: true, status, headers: headers['content-type'] === undefined ? {} : { 'content-type': headers['content-type'] } }
            : { status, headers, bytes: body.length, sha256: createHash('sha256').update(body).digest('hex') };
          resolve({ answer, body });
        });
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) => {
      // A kept-alive socket the server closed just before reuse: send again on a fresh one.
      if (retry && req.reusedSocket && e.code === 'ECONNRESET') { void send(port, agent, line, false).then(resolve); return; }
      resolve({ answer: { status: 0, headers: {}, error: e.code ?? e.message }, body: Buffer.alloc(0) });
    });
    req.end();
  });
}

async function askAll(s: Running, lines: Line[]): Promise<Got[]> {
  const ports: Record<Service, number> = { finance: Number(new URL(s.url).port), arrests: Number(new URL(s.arrestsUrl).port) };
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const out: Got[] = new Array(lines.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < lines.length) {
      const i = next++;
      out[i] = await send(ports[lines[i]!.service], agent, lines[i]!);
    }
  };
  try {
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  } finally {
    agent.destroy();
  }
  return out;
}

const short = (h: string | undefined): string => (h === undefined ? '-' : h.slice(0, 12));
const show = (v: string | undefined): string => (v === undefined ? '(absent)' : JSON.stringify(v));

/** What differs between the recorded and the new answer of one line, one item each; empty when they match. */
function differences(want: Answer, got: Answer, body: Buffer): string[] {
  const d: string[] = [];
  if (got.error !== undefined || want.error !== undefined) {
    if (got.error !== want.error) d.push(`transport error ${want.error ?? 'none'} -> ${got.error ?? 'none'}`);
  }
  if (want.status !== got.status) d.push(`status ${want.status} -> ${got.status}`);
  for (const k of [...new Set([...Object.keys(want.headers), ...Object.keys(got.headers)])].sort()) {
    if (want.headers[k] !== got.headers[k]) d.push(`header ${k}: ${show(want.headers[k])} -> ${show(got.headers[k])}`);
  }
  if (!want.loose && (want.bytes !== got.bytes || want.sha256 !== got.sha256)) {
    const head = body.subarray(0, 160).toString('utf8').replace(/\s+/g, ' ');
    d.push(`body ${want.bytes} bytes sha256 ${short(want.sha256)} -> ${got.bytes} bytes sha256 ${short(got.sha256)}${want.bytes === got.bytes ? ' (same length)' : ''}; new body starts: ${head}`);
  }
  return d;
}

function dump(dir: string, lines: Line[], got: Got[]): void {
  fs.mkdirSync(dir, { recursive: true });
  const index: string[] = [];
  lines.forEach((l, i) => {
    const name = `${String(i).padStart(3, '0')}.body`;
    fs.writeFileSync(path.join(dir, name), got[i]!.body);
    index.push(`${name} ${got[i]!.answer.status} ${l.key.length > 300 ? `${l.key.slice(0, 300)}...` : l.key}`);
  });
  fs.writeFileSync(path.join(dir, 'index.txt'), `${index.join('\n')}\n`);
}

function writeAnswers(lines: Line[], got: Got[]): void {
  const entries = lines.map((l, i) => `    ${JSON.stringify(l.key)}: ${JSON.stringify(got[i]!.answer)}`);
  const doc =
    '{\n' +
    `  "about": "Golden answers of test/golden/urls.txt (issue 18): status, the headers that matter, sha256 and length of the body. Written by GOLDEN_RECORD=1 npx vitest run test/golden.test.ts; Host ${HOST}, MIRROR_URL ${SERVER_ENV.MIRROR_URL}, ARRESTS_MIRROR_URL ${SERVER_ENV.ARRESTS_MIRROR_URL}.",\n` +
    `  "count": ${lines.length},\n` +
    '  "answers": {\n' +
    `${entries.join(',\n')}\n` +
    '  }\n' +
    '}\n';
  fs.writeFileSync(ANSWERS, doc);
}

describe('golden answers', () => {
  const lines = parseUrls(fs.readFileSync(URLS, 'utf8'));
  let server: Running | undefined;

  beforeAll(async () => {
    server = await startServer(SERVER_ENV, 120_000);
  }, 150_000);

  afterAll(async () => {
    await server?.stop();
  });

  it(`answers the ${lines.length} requests of urls.txt ${RECORD ? '(recording answers.json)' : 'as recorded in answers.json'}`, async () => {
    const got = await askAll(server!, lines);
    if (DUMP) dump(DUMP, lines, got);
    const errors = lines.filter((_, i) => got[i]!.answer.error !== undefined).map((l) => l.key);
    if (RECORD) {
      // A transport error is no answer to record: the list or the server is broken.
      expect(errors).toEqual([]);
      writeAnswers(lines, got);
      console.log(`golden: recorded ${lines.length} answers in ${path.relative(process.cwd(), ANSWERS)}`);
      return;
    }
    const recorded = (JSON.parse(fs.readFileSync(ANSWERS, 'utf8')) as { answers: Record<string, Answer> }).answers;
    const problems: string[] = [];
    lines.forEach((l, i) => {
      const want = recorded[l.key];
      const label = l.key.length > 200 ? `${l.key.slice(0, 200)}...` : l.key;
      if (want === undefined) { problems.push(`${label}\n    not recorded: re-record the answers from the code before the change (GOLDEN_RECORD=1)`); return; }
      const d = differences(want, got[i]!.answer, got[i]!.body);
      if (d.length) problems.push(`${label}\n${d.map((x) => `    ${x}`).join('\n')}`);
    });
    const listed = new Set(lines.map((l) => l.key));
    for (const k of Object.keys(recorded)) if (!listed.has(k)) problems.push(`${k}\n    recorded but no longer in urls.txt: re-record`);
    if (problems.length) {
      const report =
        `${problems.length} of ${lines.length} golden answers differ from test/golden/answers.json` +
        `${problems.length > SHOWN ? ` (the first ${SHOWN} shown)` : ''}:\n\n${problems.slice(0, SHOWN).join('\n\n')}` +
        `${problems.length > SHOWN ? `\n\n... and ${problems.length - SHOWN} more.` : ''}` +
        '\n\nTo see whole bodies: GOLDEN_DUMP=/tmp/golden-new npx vitest run test/golden.test.ts here and GOLDEN_DUMP=/tmp/golden-old in the old code, then diff -r.';
      throw new Error(report);
    }
  }, 900_000);
});
