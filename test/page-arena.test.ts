// The CSV page slots: a slot is never handed to a second page while a writer
// may still touch it, a given-up lease's late writer is locked out, and every
// slot comes back: when its writer hands it back, or once the writer's
// thread has stopped.

import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { PageArena, claimSlot, unclaimSlot } from '../dist/src/bytes/page-arena.js';
import { ROOT } from './helpers/server.js';

const never = (): Promise<void> => new Promise(() => {});
const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 20));

describe('page arena', () => {
  it('leases each slot once until it is released, then again under a new token', () => {
    const a = new PageArena(3, 64, never);
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
    expect([a.leased, a.refused]).toEqual([4, 1]);
    expect(new PageArena(0, 64, never).acquire()).toBeNull();
  });

  it('a writer writes only under its own lease: a lease given up first locks its writer out', () => {
    const a = new PageArena(1, 16, never);
    const old = a.acquire()!;
    a.release(old);
    const fresh = a.acquire()!;
    expect(claimSlot(a.slots, old, 7)).toBeNull();
    const view = claimSlot(a.slots, fresh, 7)!;
    view.set([1, 2, 3]);
    unclaimSlot(a.slots, fresh, 7);
    expect([...a.view(fresh.slot, 3)]).toEqual([1, 2, 3]);
    // The late writer's hand-back does not touch the slot's new lease either.
    unclaimSlot(a.slots, old, 7);
    a.release(fresh);
    expect(a.available).toBe(1);
  });

  it('a lease given up while its slot is being written is freed when the writer hands it back, not before', async () => {
    const a = new PageArena(1, 16, never);
    const lease = a.acquire()!;
    expect(claimSlot(a.slots, lease, 3)).not.toBeNull();
    a.release(lease);
    await settle();
    expect(a.available).toBe(0);
    expect(a.acquire()).toBeNull();
    unclaimSlot(a.slots, lease, 3);
    await settle();
    expect(a.available).toBe(1);
  });

  it('a writer that never hands back frees its slot once its thread is gone, and not before', async () => {
    let gone!: () => void;
    const asked: number[] = [];
    const a = new PageArena(1, 16, (id) => { asked.push(id); return new Promise<void>((r) => { gone = r; }); });
    const lease = a.acquire()!;
    claimSlot(a.slots, lease, 5);
    a.release(lease);
    await settle();
    expect(asked).toEqual([5]);
    expect(a.available).toBe(0);
    gone();
    await settle();
    expect(a.available).toBe(1);
    expect(a.acquire()).not.toBeNull();
  });

  it('a writer on another thread wakes the release waiting for it', async () => {
    const a = new PageArena(1, 1024, never);
    const lease = a.acquire()!;
    const arena = pathToFileURL(path.join(ROOT, 'dist/src/bytes/page-arena.js')).href;
    const source = `
      const { workerData, parentPort, threadId } = require('node:worker_threads');
      import(${JSON.stringify(arena)}).then(({ claimSlot, unclaimSlot }) => {
        const view = claimSlot(workerData.slots, workerData.lease, threadId);
        if (view === null) throw new Error('not claimed');
        parentPort.postMessage('claimed');
        // Holds the slot until the test has looked (not for a fixed time a busy machine could outlast).
        const go = new Int32Array(workerData.go);
        while (Atomics.load(go, 0) === 0) { view[0] = (view[0] + 1) & 255; Atomics.wait(go, 0, 0, 5); }
        unclaimSlot(workerData.slots, workerData.lease, threadId);
      });`;
    const go = new Int32Array(new SharedArrayBuffer(4));
    const w = new Worker(source, { eval: true, workerData: { slots: a.slots, lease: { slot: lease.slot, token: lease.token }, go: go.buffer } });
    await new Promise((r) => w.once('message', r));
    a.release(lease);
    await settle();
    expect(a.available).toBe(0);
    Atomics.store(go, 0, 1);
    Atomics.notify(go, 0);
    for (let i = 0; i < 500 && a.available === 0; i++) await settle();
    expect(a.available).toBe(1); // woken by the hand-back: the arena was told the thread never goes
    await w.terminate();
  });
});
