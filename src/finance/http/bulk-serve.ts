// Serving one bulk file: the whole file, or one byte range of it (RFC 9110
// 14), streamed from disk in 64 KB reads as the client takes them, with its
// length known (Content-Length). A file's URL names its sha256, so its answer
// may be cached for good; its ETag is the sha256 itself.

import { closeSync, constants, fstatSync, openSync, read } from 'node:fs';
import { fail } from '../../server/envelope.js';
import { apiError } from '../../server/errors.js';
import { etagMatches } from '../../server/freshness.js';
import type { Reply } from '../../server/route-spec.js';
import { MEDIA_TYPES } from '../bulk-store.js';
import type { BulkEntry } from '../bulk-set.js';

/** Bytes read from the file at a time: one chunk in flight per client, whatever its speed. */
export const CHUNK = 64 * 1024;

/**
 * Files streaming at once on this thread, at most: each holds a descriptor and a chunk, so a crowd of slow
 * readers cannot take the descriptors the connection gate counts on (one a connection) or grow memory
 * without bound; past it a download is a 503 with Retry-After. A file stream needs no page slot.
 */
export const MAX_FILE_STREAMS = 64;
let fileStreams = 0;
export const openFileStreams = (): number => fileStreams;

export const IMMUTABLE = 'public, max-age=31536000, immutable';

export type RangePick = { kind: 'whole' } | { kind: 'part'; start: number; end: number } | { kind: 'unsatisfiable' };

const WHOLE: RangePick = { kind: 'whole' };

/**
 * What a Range header asks of a file of `size` bytes (size > 0). One range, `bytes=a-b`, `bytes=a-` or
 * `bytes=-n`, is served as a 206 (b past the end is the end); one that starts past the end, or `bytes=-0`,
 * is unsatisfiable (416). Several ranges are answered with the whole file, as RFC 9110 14.2 allows (no
 * multipart/byteranges); a Range that does not parse, of another unit, or with b < a is ignored (the
 * whole file), as is any Range when If-Range is not this file's ETag (a date never is: no Last-Modified).
 */
export function pickRange(range: string, ifRange: string, etag: string, size: number): RangePick {
  if (range === '') return WHOLE;
  if (ifRange !== '' && ifRange.trim() !== etag) return WHOLE;
  const m = /^bytes=(.*)$/i.exec(range.trim());
  if (m === null) return WHOLE;
  const specs = m[1]!.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (specs.length !== 1) return WHOLE;
  const r = /^(\d*)-(\d*)$/.exec(specs[0]!);
  if (r === null || (r[1] === '' && r[2] === '')) return WHOLE;
  if (r[1] === '') {
    const n = Number(r[2]);
    return n === 0 ? { kind: 'unsatisfiable' } : { kind: 'part', start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(r[1]), end = r[2] === '' ? Infinity : Number(r[2]);
  if (end < start) return WHOLE;
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'part', start, end: Math.min(end, size - 1) };
}

/**
 * Whether If-None-Match names this file (RFC 9110 13.1.2): *, or any entity tag of a list equal to its ETag by
 * weak comparison (W/"<sha256>" matches). Evaluated before Range (RFC 9110 13.2.2): a match is a 304 for GET and HEAD.
 */
export const notModified = (ifNoneMatch: string, sha256: string): boolean => ifNoneMatch !== '' && etagMatches(ifNoneMatch, `"${sha256}"`);

/** The answer to GET or HEAD of a ready file, with the request's If-None-Match, Range and If-Range. */
export function fileReply(e: BulkEntry, req: { range: string; ifRange: string; ifNoneMatch: string; head: boolean }): Reply {
  const f = e.file!;
  const etag = `"${f.sha256}"`;
  // A cache that holds this file revalidates to a bodiless 304 carrying the validators a 200 would (RFC 9110 15.4.5).
  if (notModified(req.ifNoneMatch, f.sha256)) return { kind: 'body', status: 304, contentType: MEDIA_TYPES[f.format], body: '', headers: { ETag: etag, 'Cache-Control': IMMUTABLE } };
  const pick = pickRange(req.range, req.ifRange, etag, f.bytes);
  if (pick.kind === 'unsatisfiable') {
    const err = apiError('E_RANGE_NOT_SATISFIABLE', 'pastEnd', { range: req.range.slice(0, 80), name: f.name, bytes: f.bytes, last: f.bytes - 1 });
    return { kind: 'envelope', envelope: fail(err), status: 416, headers: { 'Content-Range': `bytes */${f.bytes}`, 'Accept-Ranges': 'bytes' } };
  }
  const [start, end] = pick.kind === 'part' ? [pick.start, pick.end] : [0, f.bytes - 1];
  const headers: Record<string, string> = {
    'Cache-Control': IMMUTABLE, ETag: etag, 'Accept-Ranges': 'bytes', 'Content-Disposition': `attachment; filename="${f.name}"`,
    ...(pick.kind === 'part' ? { 'Content-Range': `bytes ${start}-${end}/${f.bytes}` } : {}),
  };
  const length = end - start + 1;
  // HEAD sends the headers only: no descriptor is opened for it.
  if (!req.head && fileStreams >= MAX_FILE_STREAMS) {
    throw apiError('E_BUSY', 'fileStreams', { max: MAX_FILE_STREAMS });
  }
  const chunks = req.head ? { next: () => null, done: () => {} } : new FileChunks(openChecked(e), start, length);
  return {
    kind: 'file', status: pick.kind === 'part' ? 206 : 200, contentType: MEDIA_TYPES[f.format], length, headers,
    next: () => chunks.next(), done: () => chunks.done(),
  };
}

/** The file opened (not through a link), checked to be the size the index says: anything else is not this file. */
function openChecked(e: BulkEntry): number {
  let fd: number;
  try {
    fd = openSync(e.path!, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    throw notServed(e, err instanceof Error ? err.message : String(err));
  }
  // A disk fault at the stat is the file not served now (a 404 naming it), as a failed open is, never a 500.
  let size: number;
  try {
    size = fstatSync(fd).size;
  } catch (err) {
    closeSync(fd);
    throw notServed(e, err instanceof Error ? err.message : String(err));
  }
  if (size !== e.file!.bytes) {
    closeSync(fd);
    throw notServed(e, 'its size is not the index\'s');
  }
  return fd;
}

function notServed(e: BulkEntry, why: string): Error {
  process.stderr.write(`${JSON.stringify({ level: 'warn', event: 'bulk_file_unreadable', path: e.path, why })}\n`);
  return apiError('E_NOT_FOUND', 'bulkUnreadable', { name: e.file!.name });
}

/**
 * length bytes from start, a chunk per pull, read off the thread. The descriptor is closed once, at done()
 * (the end, an abort, a failure), but never under a read in flight: then that read's end closes it.
 */
class FileChunks {
  private pos: number;
  private left: number;
  private reading = false;
  private closed = false;

  constructor(private readonly fd: number, start: number, length: number) {
    this.pos = start;
    this.left = length;
    fileStreams++;
  }

  next(): Promise<Uint8Array | null> | null {
    if (this.left === 0 || this.closed) return null;
    const want = Math.min(CHUNK, this.left);
    const buf = Buffer.allocUnsafe(want);
    this.reading = true;
    return new Promise((resolve, reject) => {
      read(this.fd, buf, 0, want, this.pos, (err, n) => {
        this.reading = false;
        if (this.closed) { closeSync(this.fd); resolve(null); return; }
        if (err) { reject(err); return; }
        // Shorter than the index says: the file changed under us; the transport cuts the answer.
        if (n === 0) { reject(new Error('the file ends before its length')); return; }
        this.pos += n;
        this.left -= n;
        resolve(buf.subarray(0, n));
      });
    });
  }

  done(): void {
    if (this.closed) return;
    this.closed = true;
    fileStreams--;
    if (!this.reading) closeSync(this.fd);
  }
}
