// The coarse clock of per-request time budgets (src/server/deadlines.ts):
// a deadline fires once, not before its time and at most a tick after it;
// a cleared one never fires; the clock stops when none is pending.

import { describe, expect, it } from 'vitest';
import { TICK_MS, clearDeadline, deadline, pendingDeadlines } from '../dist/src/server/deadlines.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('deadlines', () => {
  it('fire once, in order, not before their time; cleared ones never; nothing stays pending', async () => {
    const fired: [number, number][] = [];
    const t0 = performance.now();
    const ms = [30, 10, 60, 10, 45];
    const ds = ms.map((m, k) => deadline(m, () => fired.push([k, performance.now() - t0])));
    clearDeadline(ds[4]!);
    await sleep(60 + 6 * TICK_MS);
    expect(fired.map(([k]) => k).sort()).toEqual([0, 1, 2, 3]);
    // Not before its time (the order among those due in one tick is not promised: a late tick fires them together).
    for (const [k, at] of fired) expect(at).toBeGreaterThanOrEqual(ms[k]! - 1);
    expect(pendingDeadlines()).toBe(0);
    // Cleared after it fired: nothing happens, and it does not fire again.
    clearDeadline(ds[0]!);
    await sleep(2 * TICK_MS);
    expect(fired.length).toBe(4);
  });

  it('a deadline cleared before its time never fires, while others made after it do', async () => {
    let early = 0, late = 0;
    const a = deadline(20, () => { early++; });
    deadline(40, () => { late++; });
    clearDeadline(a);
    await sleep(40 + 3 * TICK_MS);
    expect([early, late]).toEqual([0, 1]);
    expect(pendingDeadlines()).toBe(0);
  });
});
