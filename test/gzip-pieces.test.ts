// The bulk build's gzip file, coded piece by piece on the calling thread
// (src/bytes/page-coder.ts GzipPieces), in both of its ways: one PageCoder
// stream (this Node has the native handle) and, without it, a gzip member a
// piece. Whatever the pieces (empty ones, one byte, larger than the coder's
// gathering buffer), the bytes handed back, concatenated, must decompress to
// the pieces concatenated, read by Node's gunzip, by the system's gzip and by
// Python's gzip module; the stream way must be one member whose trailer
// covers the whole input, and a file of no pieces must still be valid gzip.

import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { crc32, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { GzipPieces, PAGE_CODER_READY } from '../dist/src/bytes/page-coder.js';

/** CSV-like text that compresses (repeated words) with stretches that do not (random bytes as hex). */
function piece(n: number, seed: number): Buffer {
  const words = ['2019', 'city', 'Police', '0601234', '1234567', 'capital', 'current', ',', '\n'];
  const parts: string[] = [];
  let size = 0, k = seed;
  while (size < n) {
    k = (k * 1103515245 + 12345) >>> 0;
    const w = k % 17 === 0 ? randomBytes(24).toString('hex') : words[k % words.length]!;
    parts.push(w);
    size += w.length;
  }
  return Buffer.from(parts.join('')).subarray(0, n);
}

/** Piece sizes: empty, tiny, ordinary, and one far past the 1 MB the coder gathers output in before copying it. */
const SIZES = [0, 1, 70_000, 0, 5, 3_000_000, 64 * 1024, 0, 12];

function code(ready: boolean, sizes: number[]): { input: Buffer; gz: Buffer } {
  const g = new GzipPieces(6, ready);
  const ins: Buffer[] = [], outs: Uint8Array[] = [];
  sizes.forEach((n, i) => {
    const p = piece(n, i + 1);
    ins.push(p);
    outs.push(g.push(p));
  });
  outs.push(g.end());
  return { input: Buffer.concat(ins), gz: Buffer.concat(outs) };
}

function gunzipBy(cmd: string, args: string[], gz: Buffer): Buffer {
  const r = spawnSync(cmd, args, { input: gz, maxBuffer: 64 * 1024 * 1024 });
  expect(r.status, r.stderr?.toString()).toBe(0);
  return r.stdout;
}

const PY = 'import gzip, sys; sys.stdout.buffer.write(gzip.decompress(sys.stdin.buffer.read()))';

describe('GzipPieces, the bulk build\'s gzip on the calling thread', () => {
  it('has the native handle on this Node, so the build codes one stream', () => {
    expect(PAGE_CODER_READY).toBe(true);
  });

  for (const ready of [true, false]) {
    const way = ready ? 'one stream' : 'a member a piece';
    it(`(${way}) decompresses to the pieces concatenated, read by Node, gzip and Python`, () => {
      const { input, gz } = code(ready, SIZES);
      expect(input.length).toBe(SIZES.reduce((a, b) => a + b, 0));
      expect(gz.length).toBeLessThan(input.length);
      expect(gunzipSync(gz).equals(input)).toBe(true);
      expect(gunzipBy('gzip', ['-dc'], gz).equals(input)).toBe(true);
      expect(gunzipBy('python3', ['-c', PY], gz).equals(input)).toBe(true);
    });

    it(`(${way}) writes a valid, empty gzip file when given no pieces`, () => {
      const { gz } = code(ready, []);
      expect(gz.length).toBeGreaterThan(0);
      expect(gunzipSync(gz).length).toBe(0);
      expect(gunzipBy('gzip', ['-dc'], gz).length).toBe(0);
    });
  }

  it('(one stream) is one member: the trailer holds the whole input\'s CRC-32 and length', () => {
    const { input, gz } = code(true, SIZES);
    expect([gz.readUInt32LE(gz.length - 8), gz.readUInt32LE(gz.length - 4)]).toEqual([crc32(input), input.length]);
    // A gzip header at the start; the trailer above, over the whole input, is what says there is one member.
    expect(gz.subarray(0, 3).equals(Buffer.from([0x1f, 0x8b, 0x08]))).toBe(true);
  });

  it('(one stream) hands back owned buffers: bytes returned earlier are not overwritten by later pieces', () => {
    const g = new GzipPieces(6, true);
    const a = piece(3_000_000, 7), b = piece(3_000_000, 8);
    const first = g.push(a);
    const firstCopy = Buffer.from(first);
    const second = g.push(b);
    const last = g.end();
    expect(Buffer.from(first).equals(firstCopy)).toBe(true);
    expect(gunzipSync(Buffer.concat([first, second, last])).equals(Buffer.concat([a, b]))).toBe(true);
  });
});
