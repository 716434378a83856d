// The money job's scratch arrays, kept by the worker from job to job.

/**
 * A worker's scratch arrays, grown as needed and reused by every job: a typed
 * array above a few dozen bytes is allocated outside the heap, which cost a
 * small job more than its walk. Presence marks compare with the job's own
 * stamp, so they need no clearing.
 */
export class MoneyScratch {
  private mark = 0;
  private groups = new Int32Array(256);
  private years = new Int16Array(128);
  private codes = new Uint32Array(0);
  private catYears = new Uint32Array(0);
  private present = new Uint32Array(4);
  private cats = new Uint32Array(0);
  private govs = new Uint32Array(64);
  nextMark(): number { return ++this.mark; }
  groupOf(n: number): Int32Array {
    if (this.groups.length < n) this.groups = new Int32Array(n);
    return this.groups.subarray(0, n).fill(-1);
  }
  yearIdx(n: number): Int16Array {
    if (this.years.length < n) this.years = new Int16Array(n);
    return this.years.subarray(0, n).fill(-1);
  }
  codeSeen(n: number): Uint32Array {
    if (this.codes.length < n) this.codes = new Uint32Array(n);
    return this.codes;
  }
  hasRows(n: number): Uint32Array {
    if (this.govs.length < n) this.govs = new Uint32Array(Math.max(n, 2 * this.govs.length));
    return this.govs;
  }
  catSeen(n: number): Uint32Array {
    if (this.cats.length < n) this.cats = new Uint32Array(n);
    return this.cats;
  }
  catYearBits(n: number): Uint32Array {
    if (this.catYears.length < n) this.catYears = new Uint32Array(Math.max(n, 2 * this.catYears.length));
    return this.catYears;
  }
  /** Zeroed: a job's present years, as bits. */
  presentBits(n: number): Uint32Array {
    if (this.present.length < n) this.present = new Uint32Array(n);
    return this.present.fill(0, 0, n);
  }
}

export const scratch = new MoneyScratch();
