// CPU time spent by the server's threads (from /proc, Linux) and by this
// process, around a load run: what a request costs in CPU, by where it runs.

import { readFileSync, readdirSync } from 'node:fs';

const TICK_US = 10_000; // USER_HZ is 100 on Linux

export interface CpuSnapshot {
  threads: Map<string, number>;
  self: NodeJS.CpuUsage;
  /** Machine-wide [idle, total] ticks (/proc/stat, all cores). */
  machine: [number, number];
}

function machineTicks(): [number, number] {
  // "cpu  user nice system idle iowait irq softirq steal guest guest_nice": guest time is already
  // inside user and nice, so the total is the first eight; idle counts iowait (idle, waiting on I/O).
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  return [f[3]! + f[4]!, f.reduce((a, b) => a + b, 0)];
}

function threadTicks(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      // Fields after the parenthesised name: utime and stime are the 12th and 13th.
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(tid, Number(f[11]) + Number(f[12]));
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

export const cpuSnapshot = (pid: number): CpuSnapshot => ({ threads: threadTicks(pid), self: process.cpuUsage(), machine: machineTicks() });

/**
 * Microseconds of CPU per request between two snapshots: the server's main
 * thread, its other threads (workers, V8, libuv), and this process (the load
 * generator); and the share of the machine's CPU time left idle meanwhile
 * (what the load left unused: a bound on two cores is only reached at 0).
 */
export function cpuPerRequest(pid: number, a: CpuSnapshot, b: CpuSnapshot, requests: number): { main: number; other: number; client: number; idle: number } {
  let main = 0, other = 0;
  for (const [tid, t] of b.threads) {
    const d = (t - (a.threads.get(tid) ?? 0)) * TICK_US;
    if (tid === String(pid)) main += d; else other += d;
  }
  const client = (b.self.user + b.self.system) - (a.self.user + a.self.system);
  const ticks = b.machine[1] - a.machine[1];
  return { main: main / requests, other: other / requests, client: client / requests, idle: ticks > 0 ? (b.machine[0] - a.machine[0]) / ticks : 0 };
}

/** User and system CPU of a whole process (every thread, from /proc/<pid>/stat), in microseconds. */
export function processCpu(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised name: utime and stime are the 12th and 13th.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(f[11]) * TICK_US, system: Number(f[12]) * TICK_US };
}
