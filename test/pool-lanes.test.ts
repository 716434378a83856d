// The pool's two lanes (issue 23, finding 9): a batch of small jobs goes
// ahead of every bulk job waiting for a worker, in order within each lane,
// and a waiting task that is cancelled leaves its lane.

import { describe, expect, it } from 'vitest';
import { LaneQueue } from '../dist/src/pool-lanes.js';

const task = (name: string, id: number) => ({ name, id }) as unknown as Parameters<LaneQueue['push']>[0];

describe('LaneQueue', () => {
  it('serves small-job batches before bulk jobs, each lane in arrival order', () => {
    const q = new LaneQueue();
    const [p1, c1, b1, p2, b2] = [task('moneyPage', 1), task('money', 2), task('batch', 3), task('moneyPage', 4), task('batch', 5)];
    for (const t of [p1, c1, b1, p2, b2]) q.push(t);
    expect(q.size).toBe(5);
    const order = [];
    for (let t = q.shift(); t !== null; t = q.shift()) order.push(t);
    expect(order).toEqual([b1, b2, p1, c1, p2]);
    expect(q.size).toBe(0);
  });

  it('removes a cancelled task from its lane', () => {
    const q = new LaneQueue();
    const [p1, b1, p2] = [task('moneyPage', 1), task('batch', 2), task('moneyPage', 3)];
    for (const t of [p1, b1, p2]) q.push(t);
    q.remove(p1);
    q.remove(b1);
    expect(q.size).toBe(1);
    expect(q.shift()).toBe(p2);
    expect(q.shift()).toBe(null);
  });

  it('puts a task shifted off and handed back at the head of its lane, ahead of the ones queued after it', () => {
    const q = new LaneQueue();
    const [p1, p2, b1, p3] = [task('moneyPage', 1), task('moneyPage', 2), task('batch', 3), task('moneyPage', 4)];
    q.push(p1);
    q.push(p2);
    // Piscina shifts p1, finds no worker free, and hands it back while more jobs arrive.
    const first = q.shift();
    q.push(b1);
    q.push(p3);
    q.unshift(first!);
    const order = [];
    for (let t = q.shift(); t !== null; t = q.shift()) order.push(t);
    expect(order).toEqual([b1, p1, p2, p3]);
  });
});
