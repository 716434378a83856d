// Fixed slots of shared memory that workers write CSV pages into and the
// main thread streams from. A fresh buffer per page, moved across threads,
// is 4-9 MB of external memory arriving on the main thread dozens of times
// a second: V8 answers it with a full mark-compact of the main heap every
// few pulls (measured: 49 in 5 s of bulk pulls, their marking more CPU than
// the formatting itself). Slots allocated once are never garbage.
//
// Ownership is a state word per slot: 0 free, a lease's token while the main
// thread holds it, WRITING while a worker writes it. A worker claims its
// slot (token -> WRITING) before writing and hands it back (WRITING ->
// token) after, so a lease given up while its job may still run (the client
// left, the job failed) is freed only once no writer can touch it again.

export interface PageSlots {
  buffer: SharedArrayBuffer;
  /** One state word per slot (Int32Array). */
  state: SharedArrayBuffer;
  slotBytes: number;
}

export interface PageLease {
  slot: number;
  token: number;
}

/** A lease as the main thread holds it (a worker is sent only slot and token). */
interface HeldLease extends PageLease {
  released: boolean;
}

const WRITING = -1;

export class PageArena {
  readonly slots: PageSlots;
  private readonly state: Int32Array;
  private readonly free: number[];
  private nextToken = 1;

  /**
   * writerGraceMs: how long a lease given up mid-write waits for its writer.
   * A job's writer finishes within a page's formatting time (well under a
   * second even for the widest page); one whose worker was terminated (an
   * aborted job) never hands back, and has stopped by then.
   */
  constructor(count: number, slotBytes: number, private readonly writerGraceMs = 2000) {
    this.slots = { buffer: new SharedArrayBuffer(count * slotBytes), state: new SharedArrayBuffer(4 * count), slotBytes };
    this.state = new Int32Array(this.slots.state);
    this.free = Array.from({ length: count }, (_, k) => count - 1 - k);
  }

  /** A free slot, or null when every one is held (the page then gets a buffer of its own). */
  acquire(): PageLease | null {
    const slot = this.free.pop();
    if (slot === undefined) return null;
    const token = this.nextToken;
    this.nextToken = this.nextToken === 0x7fffffff ? 1 : this.nextToken + 1;
    Atomics.store(this.state, slot, token);
    const lease: HeldLease = { slot, token, released: false };
    return lease;
  }

  /**
   * Gives a lease up: its slot is free at once, or as soon as a worker still
   * writing it is done. A second release of the same lease does nothing.
   */
  release(lease: PageLease): void {
    const held = lease as HeldLease;
    if (held.released) return;
    held.released = true;
    const prev = Atomics.compareExchange(this.state, lease.slot, lease.token, 0);
    if (prev === lease.token) { this.free.push(lease.slot); return; }
    if (prev !== WRITING) throw new Error(`page slot ${lease.slot} lost its lease`);
    const wait = waitAsync(this.state, lease.slot, WRITING, this.writerGraceMs);
    const retry = (): void => {
      Atomics.store(this.state, lease.slot, 0);
      this.free.push(lease.slot);
    };
    if (wait.async) void wait.value.then(retry); else retry();
  }

  /** Slots free now (for /health and the tests). */
  get available(): number {
    return this.free.length;
  }

  get total(): number {
    return this.state.length;
  }

  view(slot: number, length: number): Uint8Array {
    return slotView(this.slots, slot).subarray(0, length);
  }
}

// In Node since 16; typed from ES2024's lib, which this project's target predates.
const waitAsync = (Atomics as unknown as {
  waitAsync(a: Int32Array, index: number, value: number, timeout: number): { async: false; value: string } | { async: true; value: Promise<string> };
}).waitAsync;

/** A slot's whole memory. */
export function slotView(s: PageSlots, slot: number): Uint8Array {
  return new Uint8Array(s.buffer, slot * s.slotBytes, s.slotBytes);
}

/** In a worker: takes the lease's slot for writing, or null when the lease was given up. */
export function claimSlot(s: PageSlots, lease: PageLease): Uint8Array | null {
  const state = new Int32Array(s.state);
  return Atomics.compareExchange(state, lease.slot, lease.token, WRITING) === lease.token ? slotView(s, lease.slot) : null;
}

/** In a worker: hands a claimed slot back to its lease (waking a main thread waiting to free it). */
export function unclaimSlot(s: PageSlots, lease: PageLease): void {
  const state = new Int32Array(s.state);
  Atomics.store(state, lease.slot, lease.token);
  Atomics.notify(state, lease.slot);
}
