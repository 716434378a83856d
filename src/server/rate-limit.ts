// The per-client rate limiter (issue 20): a token bucket per client, all
// buckets in one fixed-size table in a SharedArrayBuffer.
//
// Why shared memory: the front threads are worker_threads, each running its
// own uWS app on the one port, and the kernel hands a client's connections to
// any of them. Buckets per thread would let a client through FRONT_THREADS
// times over; one table, locked per slot with Atomics, is one limit.
//
// Why a fixed table: a flood of distinct addresses (an IPv6 /64 holds 2^64)
// must not grow memory. A key hashes to a home slot and lives within a window
// of WINDOW slots after it (open addressing). A new key takes an empty slot
// of its window, or one whose bucket would be full by now (forgetting a full
// bucket changes nothing: a new one starts full). Failing that, it evicts the
// slot that would hold the most tokens now, the oldest refill breaking ties:
// that bucket's client, when it comes back, gets a full bucket, and the
// fuller the bucket was, the less that leniency gives away. So under a flood
// a client may get a fresh bucket: the table stays bounded, and that is the
// price. A client being refused (an empty bucket) is the last one evicted,
// since a flood of new keys leaves each of their buckets nearly full. (By the
// oldest refill alone, a refused client, whose refill time trails, was the
// first to go: a flood of new addresses bought it a full bucket each time.)
//
// The slot's key is a 64-bit hash of it (two 32-bit hashes); a collision
// shares a bucket, at odds of about slots * 8 / 2^64. The hashes are seeded
// per table, so that addresses sharing a home slot cannot be listed in
// advance; that is no cryptographic guarantee: the eviction rule above is
// what keeps a limited client limited.

import { randomFillSync } from 'node:crypto';

export { clientAddress, forwardedFor, parseTrustedProxies, peerText, type TrustedProxies } from './client-address.js';

export interface RatePolicy {
  /** Tokens refilled per second. */
  rate: number;
  /** The bucket's size: the most tokens a client can hold, and so the largest burst. */
  burst: number;
}

export interface RateDecision {
  /** The cost was taken. */
  ok: boolean;
  /** Whole tokens left after this request (floor, >= 0). */
  remaining: number;
  /** Whole seconds (ceil) until the bucket is full again. */
  resetS: number;
  /** When !ok, whole seconds (ceil, >= 1) until the cost is there; 0 when ok. */
  retryAfterS: number;
}

// The table: a 64-byte header, then SLOT_BYTES per slot.
//   header Int32 [0] MAGIC, [1] slots, [2] seed a, [3] seed b
//   slot   Int32 [0] lock, [1] insert lock (for keys whose home this is), [2] hash a, [3] hash b,
//                [4] tokens in milli-tokens, [5] unused; Float64 at byte 24: last refill, epoch ms
// Both hashes 0 is an empty slot (no key hashes to that). The refill time is a Float64 of
// absolute epoch ms, not an Int32 offset from a base, so it never wraps (an Int32 of ms
// would after 24.8 days); it is read and written only under the slot's lock, whose
// Atomics order the plain accesses between threads.
const MAGIC = 0x52617465;
const HEADER_BYTES = 64;
const SLOT_BYTES = 32;
const SLOT_I32 = SLOT_BYTES / 4;
const LOCK = 0;
const INSERT = 1;
const HASH_A = 2;
const HASH_B = 3;
const TOKENS = 4;
const LAST_F64 = 3; // Float64 index within a slot: byte 24
const WINDOW = 8;
const MAX_SLOTS = 1 << 24;
const MILLI = 1000;

/** The same epoch-ms clock on every thread: performance.now() alone counts from each thread's start. */
const origin = performance.timeOrigin; // a getter worth 13 ns a call: read once per thread
const epochMs = (): number => origin + performance.now();

/** Whole units up from x, forgiving float noise (3 / 0.1 is 30.000000000000004, not 31 of anything). */
const ceilWhole = (x: number): number => Math.max(0, Math.ceil(x - 1e-9));

/** 32-bit finalizer (MurmurHash3's fmix32): every input bit reaches every output bit. */
function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}

// Waiting for a slot's lock. The critical sections are a dozen operations, so a waiter
// spins first. Past SPINS its holder was probably descheduled (more threads than cores):
// the waiter naps NAP_MS at a time rather than burn the core the holder needs. Past
// STEAL_NAPS naps (over 100 ms) the holder is taken for dead (a worker terminated inside
// the section) and the lock is taken over, so that a dead thread cannot hang every later
// request of its slot; the worst a slow holder can then suffer is one miscounted bucket.
const SPINS = 200;
const NAP_MS = 0.1;
const STEAL_NAPS = 1000;

function lockSlow(i32: Int32Array, at: number): void {
  for (let tries = 0; ; tries++) {
    const held = Atomics.load(i32, at);
    if (held === 0) {
      if (Atomics.compareExchange(i32, at, 0, 1) === 0) return;
      continue;
    }
    if (tries < SPINS) continue;
    if (tries >= SPINS + STEAL_NAPS && Atomics.compareExchange(i32, at, held, held + 1) === held) return;
    Atomics.wait(i32, at, held, NAP_MS);
  }
}

function lock(i32: Int32Array, at: number): void {
  if (Atomics.compareExchange(i32, at, 0, 1) !== 0) lockSlow(i32, at);
}

const unlock = (i32: Int32Array, at: number): void => { Atomics.store(i32, at, 0); };

export class RateLimiter {
  private readonly i32: Int32Array;
  private readonly f64: Float64Array;
  private readonly slots: number;
  private readonly seedA: number;
  private readonly seedB: number;
  private readonly burst: number;
  /** The bucket's size in milli-tokens. */
  private readonly cap: number;
  /** Milli-tokens refilled per ms: tokens per second, by the units. */
  private readonly perMs: number;
  private readonly policyField: string;
  // The last key's hashes, and the victim's as chosen: fields, so that take() allocates only its decision.
  private ha = 0;
  private hb = 0;
  private victimA = 0;
  private victimB = 0;

  /**
   * table: from RateLimiter.table(), the same buffer in every thread of the process; one policy per table.
   * now: the clock in epoch ms, injectable for tests.
   */
  constructor(policy: RatePolicy, table: SharedArrayBuffer, private readonly now: () => number = epochMs) {
    const { rate, burst } = policy;
    if (!(Number.isFinite(rate) && rate > 0)) throw new RangeError(`rate limit: rate must be a number of tokens per second above 0; got ${rate}.`);
    if (!(Number.isInteger(burst) && burst >= 1 && burst * MILLI <= 0x7fffffff)) {
      throw new RangeError(`rate limit: burst must be a whole number from 1 to ${Math.floor(0x7fffffff / MILLI)}; got ${burst}.`);
    }
    const header = new Int32Array(table, 0, 4);
    this.slots = header[1]!;
    if (header[0] !== MAGIC || table.byteLength !== HEADER_BYTES + this.slots * SLOT_BYTES) {
      throw new TypeError('rate limit: the table is not one made by RateLimiter.table().');
    }
    this.i32 = new Int32Array(table);
    this.f64 = new Float64Array(table);
    this.seedA = header[2]!;
    this.seedB = header[3]!;
    this.burst = burst;
    this.cap = burst * MILLI;
    this.perMs = rate; // rate tokens/s = rate * MILLI milli-tokens / 1000 ms
    this.policyField = `"default";q=${burst};w=${ceilWhole(burst / rate)}`;
  }

  /** A table of `slots` buckets (32 bytes each): its memory is fixed here, whatever number of clients come. */
  static table(slots = 65_536): SharedArrayBuffer {
    if (!Number.isInteger(slots) || slots < WINDOW || slots > MAX_SLOTS) {
      throw new RangeError(`rate limit: slots must be a whole number from ${WINDOW} to ${MAX_SLOTS}; got ${slots}.`);
    }
    const buffer = new SharedArrayBuffer(HEADER_BYTES + slots * SLOT_BYTES);
    const header = new Int32Array(buffer, 0, 4);
    randomFillSync(header.subarray(2, 4));
    header[1] = slots;
    Atomics.store(header, 0, MAGIC);
    return buffer;
  }

  /**
   * Takes `cost` tokens from the client's bucket, if it has them: a cost of 1 or more in whole tokens (above burst
   * counts as burst, so that it can ever pass), a cost below 1 in thousandths (a revalidation's tenth; at least one).
   */
  take(client: string, cost: number): RateDecision {
    const units = cost >= 1 ? Math.min(Math.ceil(cost), this.burst) * MILLI : Math.max(1, Math.ceil(cost * MILLI));
    this.hash(client);
    const now = this.now();
    for (;;) {
      let slot = this.find(this.ha, this.hb);
      if (slot === -1) slot = this.claim(now);
      // -2: the slot changed hands between a look and its lock; look again.
      if (slot >= 0) return this.spend(slot, units, now);
    }
  }

  /** The IETF headers (draft-ietf-httpapi-ratelimit-headers-10): RateLimit-Policy and RateLimit, and Retry-After when refused. */
  headers(d: RateDecision): Record<string, string> {
    const h: Record<string, string> = { 'RateLimit-Policy': this.policyField, RateLimit: `"default";r=${d.remaining};t=${d.resetS}` };
    if (!d.ok) h['Retry-After'] = String(d.retryAfterS);
    return h;
  }

  /** The key's two seeded hashes into ha, hb: FNV-1a and a Murmur-style multiply, each finalized. */
  private hash(key: string): void {
    let a = this.seedA ^ 0x811c9dc5;
    let b = this.seedB;
    for (let i = 0; i < key.length; i++) {
      const c = key.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995);
      b ^= b >>> 15;
    }
    this.ha = fmix(a);
    this.hb = fmix(b ^ key.length);
    if ((this.ha | this.hb) === 0) this.hb = 1; // 0, 0 marks an empty slot
  }

  private base(slot: number): number { return HEADER_BYTES / 4 + slot * SLOT_I32; }
  private home(): number { return (this.ha >>> 0) % this.slots; }

  /** The slot holding the key, locked; -1 if none in its window; -2 if it was evicted while being locked. */
  private find(a: number, b: number): number {
    const i32 = this.i32;
    for (let j = 0, slot = this.home(); j < WINDOW; j++, slot = slot + 1 === this.slots ? 0 : slot + 1) {
      const at = this.base(slot);
      // Plain reads (an Int32 read does not tear): a match is a guess until checked under the lock.
      if (i32[at + HASH_A] !== a || i32[at + HASH_B] !== b) continue;
      lock(i32, at + LOCK);
      if (i32[at + HASH_A] === a && i32[at + HASH_B] === b) return slot;
      unlock(i32, at + LOCK);
      return -2;
    }
    return -1;
  }

  /**
   * A slot for a key not in the table, locked and holding a full bucket; -2 to look again. Inserts of
   * one key are serialized by its home slot's insert lock, so two threads seeing the same new client
   * cannot give it two buckets. Lock order: insert lock, then slot locks; a slot lock holder takes no other.
   */
  private claim(now: number): number {
    const i32 = this.i32;
    const home = this.base(this.home());
    lock(i32, home + INSERT);
    try {
      const found = this.find(this.ha, this.hb);
      if (found !== -1) return found;
      const victim = this.victim(now);
      const at = this.base(victim);
      lock(i32, at + LOCK);
      if (i32[at + HASH_A] !== this.victimA || i32[at + HASH_B] !== this.victimB) {
        unlock(i32, at + LOCK);
        return -2;
      }
      i32[at + HASH_A] = this.ha;
      i32[at + HASH_B] = this.hb;
      i32[at + TOKENS] = this.cap;
      this.f64[victim * (SLOT_BYTES / 8) + HEADER_BYTES / 8 + LAST_F64] = now;
      return victim;
    } finally {
      unlock(i32, home + INSERT);
    }
  }

  /**
   * The slot of the window a new key takes (see the top of the file), read without locks: a guess
   * that claim() checks under the victim's lock. The first empty or would-be-full slot ends the search.
   */
  private victim(now: number): number {
    const { i32, f64, cap, perMs } = this;
    let best = -1;
    let bestTokens = -1;
    let bestLast = Infinity;
    for (let j = 0, slot = this.home(); j < WINDOW; j++, slot = slot + 1 === this.slots ? 0 : slot + 1) {
      const at = this.base(slot);
      const a = i32[at + HASH_A]!;
      const b = i32[at + HASH_B]!;
      const last = f64[slot * (SLOT_BYTES / 8) + HEADER_BYTES / 8 + LAST_F64]!;
      const tokens = Math.min(cap, i32[at + TOKENS]! + Math.max(0, now - last) * perMs);
      const free = (a | b) === 0 || tokens >= cap;
      if (free || tokens > bestTokens || (tokens === bestTokens && last < bestLast)) {
        best = slot;
        bestTokens = tokens;
        bestLast = last;
        this.victimA = a;
        this.victimB = b;
        if (free) break;
      }
    }
    return best;
  }

  /** Refills the locked slot's bucket to now, takes the cost if it is there, unlocks, and says what happened. */
  private spend(slot: number, units: number, now: number): RateDecision {
    const { i32, f64, cap, perMs } = this;
    const at = this.base(slot);
    const lastAt = slot * (SLOT_BYTES / 8) + HEADER_BYTES / 8 + LAST_F64;
    let tokens = i32[at + TOKENS]!;
    let last = f64[lastAt]!;
    const credit = Math.floor((now - last) * perMs);
    if (tokens + credit >= cap) {
      tokens = cap;
      last = now;
    } else if (credit > 0) {
      // Whole milli-tokens only, and the clock moves on by the time they took: what is left of the
      // elapsed time counts towards the next one (moving `last` to now would lose it on every call).
      tokens += credit;
      last += credit / perMs;
    }
    const ok = tokens >= units;
    if (ok) tokens -= units;
    i32[at + TOKENS] = tokens;
    f64[lastAt] = last;
    unlock(i32, at + LOCK);
    const lag = Math.max(0, now - last); // time already spent towards the next milli-token
    return {
      ok,
      remaining: Math.floor(tokens / MILLI),
      // At least 1 while short of full: ceilWhole's allowance for float noise would make a hair 0.
      resetS: tokens >= cap ? 0 : Math.max(1, ceilWhole(((cap - tokens) / perMs - lag) / 1000)),
      retryAfterS: ok ? 0 : Math.max(1, ceilWhole(((units - tokens) / perMs - lag) / 1000)),
    };
  }
}
