// Per-request time budgets on one coarse clock. A setTimeout and its
// clearTimeout per answer cost about 0.6 us and 2% of a front thread serving
// one government's answers (libuv's timer heap insert and removal,
// profile-issue32.md); a budget is tens of seconds, so a deadline checked
// every TICK_MS is as good. One interval runs while any deadline is pending
// (unref'd: it never keeps a process alive) and stops at the first tick
// that finds none.

/** How late a deadline may fire, at most. */
export const TICK_MS = 25;

export interface Deadline {
  readonly at: number;
  readonly fire: () => void;
}

const pending = new Set<Deadline>();
let ticking: ReturnType<typeof setInterval> | undefined;

/** Calls fire once, ms from now (within TICK_MS after), unless the deadline is cleared first. */
export function deadline(ms: number, fire: () => void): Deadline {
  const d: Deadline = { at: performance.now() + ms, fire };
  pending.add(d);
  if (ticking === undefined) {
    ticking = setInterval(tick, TICK_MS);
    ticking.unref();
  }
  return d;
}

/** The deadline will not fire (cleared after it fired: nothing). */
export function clearDeadline(d: Deadline): void {
  pending.delete(d);
}

function tick(): void {
  const now = performance.now();
  for (const d of pending) {
    if (d.at > now) continue;
    pending.delete(d);
    d.fire();
  }
  if (pending.size === 0 && ticking !== undefined) {
    clearInterval(ticking);
    ticking = undefined;
  }
}

/** Deadlines pending, for tests. */
export const pendingDeadlines = (): number => pending.size;
