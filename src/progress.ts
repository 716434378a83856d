// A terminal progress bar for the long-running commands (generators, builds).
// On a TTY it redraws one line; otherwise it prints a line every 10%.

export class Progress {
  private done = 0;
  private lastPct = -1;
  private readonly tty = process.stderr.isTTY === true;

  /** t0: when the work began (performance.now()), where that was before the total was known (the first page's count). */
  constructor(private readonly label: string, private readonly total: number, private readonly quiet = false, private readonly t0 = performance.now()) {}

  tick(n = 1, note = ''): void {
    this.done += n;
    if (this.quiet) return;
    const pct = this.total ? Math.floor((this.done / this.total) * 100) : 100;
    if (this.tty) {
      const width = 30, fill = Math.round((pct / 100) * width);
      process.stderr.write(`\r${this.label} [${'#'.repeat(fill)}${'.'.repeat(width - fill)}] ${pct}% ${this.done}/${this.total} ${note}`.slice(0, 160).padEnd(80));
    } else if (pct >= this.lastPct + 10 || this.done === this.total) {
      process.stderr.write(`${this.label}: ${pct}% (${this.done}/${this.total}) ${note}\n`);
      this.lastPct = pct;
    }
  }

  finish(): number {
    const s = (performance.now() - this.t0) / 1000;
    if (!this.quiet) process.stderr.write(`${this.tty ? '\n' : ''}${this.label}: done in ${secondsText(s)}\n`);
    return s;
  }
}

/** Seconds as a person reads them: milliseconds shown under a second (a quick step is never "0.0 s"). */
export const secondsText = (s: number): string => `${s.toFixed(s < 1 ? 3 : s < 100 ? 2 : 1)} s`;
