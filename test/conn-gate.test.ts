// The connection gate's rule in-process (issue 23, finding 2): past the cap
// it closes the listeners once, below 90% of it opens them again once, and
// its figures reach /health through shared memory. npm run test:stress runs
// it for real, under ulimit -n 1200.

import { closeSync, openSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConnectionGate, connectionStats, defaultCap, descriptorLimit, openDescriptors } from '../dist/src/server/conn-gate.js';

describe('connection gate', () => {
  it('counts descriptors and reads the limit', () => {
    const before = openDescriptors()!;
    const fds = Array.from({ length: 10 }, () => openSync('/dev/null', 'r'));
    expect(openDescriptors()! - before).toBe(10);
    for (const fd of fds) closeSync(fd);
    expect(descriptorLimit()).toBeGreaterThan(0);
    expect(defaultCap(1200, 100)).toBe(825);
  });

  it('closes the listeners past the cap and opens them below 90% of it, once each way', () => {
    const calls: string[] = [];
    const gate = new ConnectionGate(20, { pause: () => calls.push('pause'), resume: () => calls.push('resume') });
    gate.check();
    expect(calls).toEqual([]);
    const fds = Array.from({ length: 25 }, () => openSync('/dev/null', 'r'));
    gate.check();
    gate.check();
    expect(calls).toEqual(['pause']);
    expect(connectionStats()).toMatchObject({ max_connections: 20, paused: true, pauses: 1 });
    // Down to 19: below the cap but not below 90% of it (18): still closed.
    for (const fd of fds.splice(0, 6)) closeSync(fd);
    gate.check();
    expect(calls).toEqual(['pause']);
    for (const fd of fds.splice(0)) closeSync(fd);
    gate.check();
    expect(calls).toEqual(['pause', 'resume']);
    expect(connectionStats()).toMatchObject({ paused: false, pauses: 1 });
  });
});
