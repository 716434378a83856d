// A probe, not served code (issue 32): would a WebAssembly rows writer reach the answer targets? The
// profiles put most of an all-categories render in the rows (kept pieces copied, numbers written), already
// written the fastest ways measured in JavaScript. This writes the same rows both ways, in-process:
//   js:        ByteWriter (src/bytes/byte-writer.ts), the calls the compiled rows loop makes: byte, piece, number;
//   wasm+copy: the row's numbers and piece ids stored into WebAssembly memory, one call writing every row
//              (bench/wasm-rows.wat), and the bytes copied out into a Buffer of their own;
//   wasm view: the same, the bytes left in WebAssembly memory (what a writer could hand the socket).
// The rows are real answers' (every category of the mirror's most populous governments, as the served
// answer writes them), taken n at a time: 110 rows is about one government's Police answer at full scale, 1,000
// its all categories. Both writers must give JSON.stringify's bytes for the same rows before anything is timed.
// The key functions that choose a row's pieces, and the cells that compute its numbers, are not in either
// figure: a WebAssembly writer would keep them in JavaScript.
//   node dist/bench/wasm-rows.js [--data DIR] [--govs 300] [--rounds 7] [--no-write]
// Appends its table to bench/results/wasm-rows.md unless --no-write.

import { appendFileSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import wabtInit from 'wabt';
import { ByteWriter } from '../src/bytes/byte-writer.js';
import { withRows } from './lib/governments.js';
import { inlineBuild } from './lib/inline-build.js';
import { median } from './lib/timing.js';
import { arg } from './lib/args.js';

const HERE = path.resolve(import.meta.dirname, '../..');
const DATA = path.resolve(arg('data', path.join(HERE, 'fixtures/finance/v6')));
const nGovs = Number(arg('govs', '300')), rounds = Number(arg('rounds', '7'));

// The served answer's row, field by field: the three runs of fields that repeat (a government's, a
// category's, its codes') are the kept pieces; year and amount are the numbers.
const FIELDS = ['year', 'canonical_govid', 'gov_name', 'category', 'spend_subtype', 'amt_nominal', 'codes_included', 'aggregate_fallback', 'notes'];
type Row = Record<string, unknown>;
const b = await inlineBuild(HERE, DATA);
const govids = withRows((await b.inject(b.service, `/api/v1/governments?limit=${nGovs}`)).json());
const rows: Row[] = [];
let skipped = 0;
for (const g of govids) {
  const r = await b.inject(b.service, `/api/v1/governments/${g}/spending`);
  for (const row of (r.json() as { data: Row[] }).data) {
    if (Object.keys(row).join() !== FIELDS.join()) throw new Error(`a row's fields are not the probe's: ${Object.keys(row).join()}`);
    // The probe's WebAssembly writes non-negative integers only.
    if (Number.isSafeInteger(row.amt_nominal) && (row.amt_nominal as number) >= 0) rows.push(row); else skipped++;
  }
}
await b.ctx.pool.close();

// The pieces, each kept once: a government's, a category's, its codes'; and the two keys' prefixes.
const enc = new TextEncoder();
const texts: string[] = ['"year":', ',"amt_nominal":'];
const ids = new Map<string, number>();
const pieceOf = (t: string): number => { let k = ids.get(t); if (k === undefined) { ids.set(t, (k = texts.length)); texts.push(t); } return k; };
const q = JSON.stringify;
interface In { year: number; amt: number; a: number; b: number; c: number }
const inputs: In[] = rows.map((r) => ({
  year: r.year as number, amt: r.amt_nominal as number,
  a: pieceOf(`,"canonical_govid":${q(r.canonical_govid)},"gov_name":${q(r.gov_name)},`),
  b: pieceOf(`"category":${q(r.category)},"spend_subtype":${q(r.spend_subtype)}`),
  c: pieceOf(`,"codes_included":${q(r.codes_included)},"aggregate_fallback":${q(r.aggregate_fallback)},"notes":${q(r.notes)}`),
}));
const pieces = texts.map((t) => enc.encode(t));

// The WebAssembly writer: assembled from its text here (wabt), so the source is what runs.
const wabt = await wabtInit();
const wat = readFileSync(path.join(HERE, 'bench/wasm-rows.wat'), 'utf8');
const { buffer: wasm } = wabt.parseWat('wasm-rows.wat', wat, { bulk_memory: true }).toBinary({});
// The project's types (lib es2022, @types/node) declare no WebAssembly: the little used here, typed here.
interface WasmMemory { buffer: ArrayBuffer; grow(pages: number): number }
const WA = (globalThis as unknown as { WebAssembly: { instantiate(b: Uint8Array): Promise<{ instance: { exports: Record<string, unknown> } }> } }).WebAssembly;
const { instance } = await WA.instantiate(wasm);
const mem = instance.exports.mem as WasmMemory;
const wasmRows = instance.exports.rows as (n: number, rows: number, table: number, out: number, pre: number, amtPre: number) => number;
// Memory: digit pairs at 0, pieces from 1 KB, their table at 1 MB, the rows' inputs at 2 MB, the output from 4 MB.
const TABLE = 1 << 20, INPUT = 2 << 20, OUT = 4 << 20;
mem.grow(Math.max(0, Math.ceil((OUT + (16 << 20)) / 65536) - mem.buffer.byteLength / 65536));
const u8 = new Uint8Array(mem.buffer), i32 = new Int32Array(mem.buffer), f64 = new Float64Array(mem.buffer);
for (let k = 0; k < 100; k++) { u8[2 * k] = 48 + Math.floor(k / 10); u8[2 * k + 1] = 48 + (k % 10); }
let at = 1024;
pieces.forEach((p, k) => {
  u8.set(p, at); i32[(TABLE >> 2) + 2 * k] = at; i32[(TABLE >> 2) + 2 * k + 1] = p.length; at += p.length;
  if (at + 8 > TABLE) throw new Error('the pieces outgrew the probe\'s arena');
});

function jsWrite(rs: In[]): Uint8Array {
  const w = new ByteWriter(rs.length * 256);
  const pre = pieces[0]!, amtPre = pieces[1]!;
  w.byte(0x5b);
  for (let i = 0; i < rs.length; i++) {
    const r = rs[i]!;
    if (i > 0) w.byte(0x2c);
    w.byte(0x7b); w.piece(pre); w.number(r.year); w.piece(pieces[r.a]!); w.piece(pieces[r.b]!); w.piece(amtPre); w.number(r.amt); w.piece(pieces[r.c]!); w.byte(0x7d);
  }
  w.byte(0x5d);
  return w.written();
}

function wasmWrite(rs: In[], copyOut: boolean): Uint8Array {
  for (let i = 0; i < rs.length; i++) {
    const r = rs[i]!, k = (INPUT >> 2) + 6 * i;
    f64[k >> 1] = r.amt; i32[k + 2] = r.year; i32[k + 3] = r.a; i32[k + 4] = r.b; i32[k + 5] = r.c;
  }
  const end = wasmRows(rs.length, INPUT, TABLE, OUT, 0, 1);
  if (!copyOut) return u8.subarray(OUT, end);
  const out = Buffer.allocUnsafeSlow(end - OUT);
  out.set(u8.subarray(OUT, end));
  return out;
}

const lines: string[] = [];
const say = (s: string): void => { console.log(s); lines.push(s); };
say(`\n## ${new Date().toISOString()}: ${path.basename(DATA)}, ${rows.length} rows of ${govids.length} governments' all-categories answers (${skipped} with an amount not a non-negative integer left out), ${pieces.length} pieces, Node ${process.version}, ${os.cpus().length} cores, ${rounds} interleaved rounds\n`);
say('| rows a batch | bytes | js (us a batch, median) | wasm+copy | wasm view | js / wasm+copy | every round: js, wasm+copy, wasm view (us) |');
say('|---:|---:|---:|---:|---:|---:|---|');
for (const n of [110, 1000]) {
  if (rows.length < n) { say(`| ${n} | | | | | | fewer rows than that |`); continue; }
  // Batches of n rows in turn, so a batch's pieces are as mixed as an answer's.
  const batches: In[][] = [];
  for (let s = 0; s + n <= inputs.length && batches.length < 64; s += n) batches.push(inputs.slice(s, s + n));
  const expected = batches.map((_, j) => Buffer.from(q(rows.slice(j * n, j * n + n))));
  batches.forEach((bt, j) => {
    for (const [name, got] of [['js', jsWrite(bt)], ['wasm+copy', wasmWrite(bt, true)], ['wasm view', wasmWrite(bt, false)]] as const) {
      if (!Buffer.from(got).equals(expected[j]!)) throw new Error(`${name}'s bytes for batch ${j} of ${n} rows are not JSON.stringify's`);
    }
  });
  const iters = Math.ceil(40000 / n);
  const time = (f: (bt: In[]) => unknown): number => {
    const t0 = process.hrtime.bigint();
    for (let k = 0; k < iters; k++) f(batches[k % batches.length]!);
    return Number(process.hrtime.bigint() - t0) / iters / 1000;
  };
  const js: number[] = [], wc: number[] = [], wv: number[] = [];
  // A round of each first, not counted: the JIT's tiers (and WebAssembly's, Liftoff then TurboFan) settle.
  time(jsWrite); time((bt) => wasmWrite(bt, true)); time((bt) => wasmWrite(bt, false));
  for (let r = 0; r < rounds; r++) { js.push(time(jsWrite)); wc.push(time((bt) => wasmWrite(bt, true))); wv.push(time((bt) => wasmWrite(bt, false))); }
  const each = js.map((_, r) => `${js[r]!.toFixed(1)}, ${wc[r]!.toFixed(1)}, ${wv[r]!.toFixed(1)}`).join('; ');
  say(`| ${n} | ${expected[0]!.length.toLocaleString('en-US')} | ${median(js).toFixed(1)} | ${median(wc).toFixed(1)} | ${median(wv).toFixed(1)} | ${(median(js) / median(wc)).toFixed(2)} | ${each} |`);
}
if (!process.argv.includes('--no-write')) appendFileSync(path.join(HERE, 'bench/results/wasm-rows.md'), `${lines.join('\n')}\n`);
