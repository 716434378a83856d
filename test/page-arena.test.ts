// The CSV page slots: a slot is never handed to a second page while a writer
// may still touch it, a given-up lease's late writer is locked out, and every
// slot comes back.

import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { PageArena, claimSlot, unclaimSlot } from '../src/server/page-arena.js';

describe('page arena', () => {
  it('leases each slot once until it is released, then again', () => {
    const a = new PageArena(3, 64);
    const leases = [a.acquire(), a.acquire(), a.acquire()];
    expect(leases.every((l) => l !== null)).toBe(true);
    expect(new Set(leases.map((l) => l!.slot)).size).toBe(3);
    expect(a.acquire()).toBeNull();
    a.release(leases[1]!);
    a.release(leases[1]!); // a second release of the same lease does nothing
    expect(a.available).toBe(1);
    const again = a.acquire()!;
    expect(again.slot).toBe(leases[1]!.slot);
    expect(again.token).not.toBe(leases[1]!.token);
    expect(a.available).toBe(0);
  });

  it('a writer writes only under its own lease: a lease given up first locks its writer out', () => {
    const a = new PageArena(1, 16);
    const old = a.acquire()!;
    a.release(old);
    const fresh = a.acquire()!;
    expect(claimSlot(a.slots, old)).toBeNull();
    const view = claimSlot(a.slots, fresh)!;
    view.set([1, 2, 3]);
    unclaimSlot(a.slots, fresh);
    expect([...a.view(fresh.slot, 3)]).toEqual([1, 2, 3]);
  });

  it('a lease given up while its slot is being written is freed only when the writer hands it back', async () => {
    const a = new PageArena(1, 16);
    const lease = a.acquire()!;
    expect(claimSlot(a.slots, lease)).not.toBeNull();
    a.release(lease);
    expect(a.available).toBe(0);
    expect(a.acquire()).toBeNull();
    unclaimSlot(a.slots, lease);
    await new Promise((r) => setTimeout(r, 20));
    expect(a.available).toBe(1);
  });

  it('a writer on another thread wakes the release waiting for it', async () => {
    const a = new PageArena(1, 1024);
    const lease = a.acquire()!;
    const source = `
      const { workerData, parentPort } = require('node:worker_threads');
      const { slots, lease } = workerData;
      const state = new Int32Array(slots.state);
      if (Atomics.compareExchange(state, lease.slot, lease.token, -1) !== lease.token) throw new Error('not claimed');
      parentPort.postMessage('claimed');
      const view = new Uint8Array(slots.buffer, lease.slot * slots.slotBytes, slots.slotBytes);
      const until = Date.now() + 150;
      while (Date.now() < until) view[0] = (view[0] + 1) & 255;
      Atomics.store(state, lease.slot, lease.token);
      Atomics.notify(state, lease.slot);`;
    const w = new Worker(source, { eval: true, workerData: { slots: a.slots, lease: { slot: lease.slot, token: lease.token } } });
    await new Promise((r) => w.once('message', r));
    const t0 = Date.now();
    a.release(lease);
    expect(a.available).toBe(0);
    for (let i = 0; i < 100 && a.available === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(a.available).toBe(1);
    expect(Date.now() - t0).toBeLessThan(1500); // woken by the writer, not by the grace timeout (2 s)
    await w.terminate();
  });

  it('a writer that never hands back (its worker terminated) frees its slot after the grace time', async () => {
    const a = new PageArena(1, 16, 100);
    const lease = a.acquire()!;
    claimSlot(a.slots, lease);
    a.release(lease);
    expect(a.available).toBe(0);
    await new Promise((r) => setTimeout(r, 250));
    expect(a.available).toBe(1);
    expect(a.acquire()).not.toBeNull();
  });
});
