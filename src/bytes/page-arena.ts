// Fixed slots of shared memory that workers write CSV pages into and the
// thread serving the request streams from (the main thread, or a front
// thread with its own slots). A fresh buffer per page, moved across threads,
// is 4-9 MB of external memory arriving on that thread dozens of times
// a second: V8 answers it with a full mark-compact of the main heap every
// few pulls (measured: 49 in 5 s of bulk pulls, their marking more CPU than
// the formatting itself). Slots allocated once are never garbage.
//
// Ownership is a state word per slot: 0 free, a lease's token (> 0) while
// the serving thread holds it, minus the writer's thread id while a worker
// writes it. A worker claims its slot (token -> -threadId) before writing
// and hands it back (-threadId -> token) after, so a lease given up while
// its job may still run (the client left, a sibling job failed) is freed
// only once its writer has handed the slot back or its thread has exited.
//
// A page is streamed as it is written (issue 32): beside the state words, a
// control word per slot says how many of the page's bytes the writer has put
// in the slot so far (Atomics.store, then notify: the serving thread waits on
// it with waitAsync when it has sent all of them), and another that the
// serving thread sets when it gives the lease up, which the writer reads
// between pieces to stop early. After them, four words for the whole arena:
// the coders (gzip, br) the workers hold open now, a hold that the test-only
// fault hook sets to keep writers between pieces, the pages whose writers
// stopped because their lease was given up, and a fault the hook sets to make
// writers fail at their next piece.

export interface PageSlots {
  buffer: SharedArrayBuffer;
  /** One state word per slot (Int32Array). */
  state: SharedArrayBuffer;
  /** Per slot the bytes written so far and the given-up flag (WRITTEN, GIVEN_UP), then the arena's words (CODERS_OPEN, HOLD, CUT). */
  control: SharedArrayBuffer;
  slotBytes: number;
}

/** Control words: per slot, at 2 * slot + ...; then the arena's, at 2 * count + .... */
const WRITTEN = 0, GIVEN_UP = 1, CODERS_OPEN = 0, HOLD = 1, CUT = 2, FAIL = 3;
const ARENA_WORDS = 4;

export interface PageLease {
  slot: number;
  token: number;
}

/** A lease as the serving thread holds it (a worker is sent only slot and token). */
interface HeldLease extends PageLease {
  released: boolean;
}

/** Resolves once the thread has stopped running (at once for one that has or never existed). */
export type ThreadGone = (threadId: number) => Promise<void>;

// In Node since 16; typed from ES2024's lib, which this project's target predates.
const waitAsync = (Atomics as unknown as {
  waitAsync(a: Int32Array, index: number, value: number): { async: false; value: string } | { async: true; value: Promise<string> };
}).waitAsync;

export class PageArena {
  readonly slots: PageSlots;
  private readonly state: Int32Array;
  private readonly control: Int32Array;
  private readonly free: number[];
  private nextToken = 1;
  /** Leases granted, and requests for one that found every slot held: pulls refused with a 503 (for /health). */
  leased = 0;
  refused = 0;

  constructor(count: number, slotBytes: number, private readonly threadGone: ThreadGone) {
    this.slots = { buffer: new SharedArrayBuffer(count * slotBytes), state: new SharedArrayBuffer(4 * count), control: new SharedArrayBuffer(4 * (2 * count + ARENA_WORDS)), slotBytes };
    this.state = new Int32Array(this.slots.state);
    this.control = new Int32Array(this.slots.control);
    this.free = Array.from({ length: count }, (_, k) => count - 1 - k);
  }

  /** A free slot, or null when every one is held. */
  acquire(): PageLease | null {
    const slot = this.free.pop();
    if (slot === undefined) { this.refused++; return null; }
    this.leased++;
    const token = this.nextToken;
    this.nextToken = this.nextToken === 0x7fffffff ? 1 : this.nextToken + 1;
    // No writer touches a free slot's words: its last one handed it back before it was freed.
    Atomics.store(this.control, 2 * slot + WRITTEN, 0);
    Atomics.store(this.control, 2 * slot + GIVEN_UP, 0);
    Atomics.store(this.state, slot, token);
    const lease: HeldLease = { slot, token, released: false };
    return lease;
  }

  /**
   * Gives a lease up: its slot is free at once, or as soon as a worker still
   * writing it hands it back or its thread stops. A second release of the
   * same lease does nothing.
   */
  release(lease: PageLease): void {
    const held = lease as HeldLease;
    if (held.released) return;
    held.released = true;
    // Said first: a writer still writing reads it between pieces, stops and hands the slot back.
    Atomics.store(this.control, 2 * lease.slot + GIVEN_UP, 1);
    const prev = Atomics.compareExchange(this.state, lease.slot, lease.token, 0);
    if (prev === lease.token) { this.free.push(lease.slot); return; }
    // Only the lease's own writer can have changed the word (tokens are unique): it is writing now.
    const freeNow = (): void => {
      if (Atomics.compareExchange(this.state, lease.slot, lease.token, 0) === lease.token
        || Atomics.compareExchange(this.state, lease.slot, prev, 0) === prev) this.free.push(lease.slot);
    };
    const handedBack = waitAsync(this.state, lease.slot, prev);
    void Promise.race([handedBack.async ? handedBack.value : Promise.resolve(), this.threadGone(-prev)]).then(freeNow);
  }

  get available(): number {
    return this.free.length;
  }

  get total(): number {
    return this.state.length;
  }

  view(slot: number, length: number): Uint8Array {
    return slotView(this.slots, slot).subarray(0, length);
  }

  /** The bytes of its page the writer of a lease's slot has published so far. */
  written(lease: PageLease): number {
    return Atomics.load(this.control, 2 * lease.slot + WRITTEN);
  }

  /** Resolves once the writer publishes more than `seen` bytes (at once when it has already). */
  moreWritten(lease: PageLease, seen: number): Promise<unknown> {
    const w = waitAsync(this.control, 2 * lease.slot + WRITTEN, seen);
    return w.async ? w.value : Promise.resolve();
  }

  /** Slots a writer holds now (claimed, not handed back). */
  get slotsWriting(): number {
    let n = 0;
    for (let k = 0; k < this.state.length; k++) if (Atomics.load(this.state, k) < 0) n++;
    return n;
  }

  /** The coders (gzip, br) the workers hold open now: one per coded page being written. */
  get openCoders(): number {
    return Atomics.load(this.control, 2 * this.total + CODERS_OPEN);
  }

  /** Pages whose writers stopped before their end because their lease was given up. */
  get pagesCut(): number {
    return Atomics.load(this.control, 2 * this.total + CUT);
  }

  /** The test-only hold (fault-route.ts): while set, writers wait between pieces. */
  hold(on: boolean): void {
    Atomics.store(this.control, 2 * this.total + HOLD, on ? 1 : 0);
    Atomics.notify(this.control, 2 * this.total + HOLD);
  }

  /** The test-only fault (fault-route.ts): while set, writers throw at their next piece (a held one at once). */
  failWriters(on: boolean): void {
    Atomics.store(this.control, 2 * this.total + FAIL, on ? 1 : 0);
    Atomics.notify(this.control, 2 * this.total + HOLD);
  }
}

function slotView(s: PageSlots, slot: number): Uint8Array {
  return new Uint8Array(s.buffer, slot * s.slotBytes, s.slotBytes);
}

/** In a worker (threadId > 0): takes the lease's slot for writing, or null when the lease was given up. */
export function claimSlot(s: PageSlots, lease: PageLease, threadId: number): Uint8Array | null {
  const state = new Int32Array(s.state);
  return Atomics.compareExchange(state, lease.slot, lease.token, -threadId) === lease.token ? slotView(s, lease.slot) : null;
}

/** In a worker: hands a claimed slot back to its lease, waking a serving thread waiting to free it. */
export function unclaimSlot(s: PageSlots, lease: PageLease, threadId: number): void {
  const state = new Int32Array(s.state);
  Atomics.compareExchange(state, lease.slot, -threadId, lease.token);
  Atomics.notify(state, lease.slot);
}

/** In a worker: publishes that the first n bytes of the page in the lease's slot are written, waking a serving thread waiting for them. */
export function publishWritten(s: PageSlots, lease: PageLease, n: number, wake = true): void {
  const control = new Int32Array(s.control);
  Atomics.store(control, 2 * lease.slot + WRITTEN, n);
  // Without wake the count is there for the serving thread's next look, which does not wait when it has moved.
  if (wake) Atomics.notify(control, 2 * lease.slot + WRITTEN);
}

/**
 * In a worker, between pieces of a page: whether the serving thread gave the lease up (its client left,
 * a sibling job failed), so the writer stops. While the test hook's hold is set, waits here first.
 */
export function givenUp(s: PageSlots, lease: PageLease): boolean {
  const control = new Int32Array(s.control);
  const hold = control.length - ARENA_WORDS + HOLD, fail = control.length - ARENA_WORDS + FAIL;
  while (Atomics.load(control, hold) !== 0 && Atomics.load(control, 2 * lease.slot + GIVEN_UP) === 0 && Atomics.load(control, fail) === 0) Atomics.wait(control, hold, 1, 50);
  if (Atomics.load(control, fail) !== 0) throw new Error('injected page-writer fault (CIVICSTREAM_FAULTS test hook)');
  return Atomics.load(control, 2 * lease.slot + GIVEN_UP) !== 0;
}

/** In a worker: counts a coder opened (+1) or closed (-1), for the arena's openCoders. */
export function countCoder(s: PageSlots, delta: 1 | -1): void {
  const control = new Int32Array(s.control);
  Atomics.add(control, control.length - ARENA_WORDS + CODERS_OPEN, delta);
}

/** In a worker: counts a page whose writer stopped because its lease was given up. */
export function countCut(s: PageSlots): void {
  const control = new Int32Array(s.control);
  Atomics.add(control, control.length - ARENA_WORDS + CUT, 1);
}
