// A page written into its slot a piece at a time, each piece published as
// it is written (page-arena.ts publishWritten), so the thread serving the
// request streams the page while the worker is still writing it (issue 32).
// Plain, the page's bytes are written straight into the slot; in a coding
// (gzip, br), a piece is written to a small buffer and coded into the slot
// (page-coder.ts). Between pieces the writer reads whether its lease was
// given up (the client left) and stops. A page that outgrows its slot goes
// on in a buffer of its own: the stream has sent what was published from the
// slot and sends the rest from the job's result, which holds the whole page.

import { ByteWriter } from './byte-writer.js';
import { PageCoder, type PageCodingSpec } from './page-coder.js';
import { countCoder, countCut, givenUp, publishWritten, type PageLease, type PageSlots } from './page-arena.js';

/** Plain bytes a piece: about 700 rows of a money page, a millisecond of writing. */
export const PIECE = 64 * 1024;
/** Pieces between wakes of the serving thread (512 KB of a plain page). */
const WAKE_EVERY = 8;

/** How a page ended: in the slot (its first `length` bytes), in `bytes` whole (it outgrew the slot), or cut (the lease was given up). */
export interface SlotPage {
  inSlot: boolean;
  length: number;
  bytes: Uint8Array | null;
  cut: boolean;
}

export class SlotWriter {
  /** Where the page's plain bytes are written: the slot itself, or (coded) a buffer of a piece. */
  readonly w: ByteWriter;
  private readonly coder: PageCoder | null;
  private pieces = 0;
  private cut = false;
  private closed = false;

  constructor(private readonly s: PageSlots, private readonly lease: PageLease, private readonly slot: Uint8Array, coding: PageCodingSpec | undefined) {
    if (coding === undefined) {
      this.coder = null;
      this.w = new ByteWriter(slot);
    } else {
      this.coder = new PageCoder(coding, slot);
      countCoder(s, 1);
      this.w = new ByteWriter(PIECE + 4096);
    }
  }

  /** Where the piece being written ends (a byte count of w): writers stop at the first row's end past it. */
  get until(): number {
    return this.coder === null ? this.w.n + PIECE : PIECE;
  }

  /**
   * Publishes the piece just written in w; false when the lease was given up, and the writer should stop.
   * wake: the serving thread is woken for it whatever its place (the last piece before the writer turns to
   * other work, such as summing the next groups of a page written in steps).
   */
  piece(wake = false): boolean {
    if (this.coder !== null) {
      // The first piece (the header and the first rows) is flushed out whole: the client's first bytes.
      this.coder.push(this.w.written(), this.pieces === 0 ? 'flush' : 'more');
      this.w.n = 0;
      if (!this.coder.overflowed) publishWritten(this.s, this.lease, this.coder.inSlot, wake || this.wakes());
    } else if (this.w.buf === this.slot) publishWritten(this.s, this.lease, this.w.n, wake || this.wakes());
    this.pieces++;
    this.cut = givenUp(this.s, this.lease);
    return !this.cut;
  }

  /**
   * Whether this piece wakes the serving thread: the first (the client's first bytes), then every WAKE_EVERY-th.
   * Each wake is a turn of the serving thread's loop and a promise; woken for every 64 KB piece, 4 clients'
   * repeat pulls ran 17% slower than pages sent whole (bench:pairs scenario 2, 2026-11-27). The end always wakes.
   */
  private wakes(): boolean {
    return this.pieces % WAKE_EVERY === 0;
  }

  /**
   * A page's bytes from a writer that writes on into w until w holds `until` bytes, true once it has written all
   * (csv-writer.ts csvPieces): each piece published as it is written, the last waking the serving thread when
   * wakeAtEnd. False when the lease was given up, and the writer should stop.
   */
  writeAll(write: (w: ByteWriter, until: number) => boolean, wakeAtEnd = false): boolean {
    for (let ended = false; !ended;) {
      ended = write(this.w, this.until);
      if (!this.piece(ended && wakeAtEnd)) return false;
    }
    return true;
  }

  /** Plain bytes built whole elsewhere (an Arrow stream, which its library builds), put in piece by piece. */
  whole(b: Uint8Array): boolean {
    for (let at = 0; at < b.byteLength; at += PIECE) {
      this.w.bytes(b.subarray(at, at + PIECE));
      if (!this.piece()) return false;
    }
    return true;
  }

  /** The page's end: the coder finished; the last bytes published. */
  end(): SlotPage {
    if (this.cut) { countCut(this.s); return { inSlot: false, length: 0, bytes: null, cut: true }; }
    if (this.coder !== null) {
      this.coder.push(this.w.written(), 'finish');
      this.w.n = 0;
      if (this.coder.overflowed) { const bytes = this.coder.whole(); return { inSlot: false, length: bytes.byteLength, bytes, cut: false }; }
      publishWritten(this.s, this.lease, this.coder.inSlot);
      return { inSlot: true, length: this.coder.inSlot, bytes: null, cut: false };
    }
    if (this.w.buf !== this.slot) return { inSlot: false, length: this.w.n, bytes: this.w.written(), cut: false };
    publishWritten(this.s, this.lease, this.w.n);
    return { inSlot: true, length: this.w.n, bytes: null, cut: false };
  }

  /** Frees the coder; once, however the page ended (a finally). */
  close(): void {
    if (this.coder === null || this.closed) return;
    this.closed = true;
    this.coder.close();
    countCoder(this.s, -1);
  }
}
