// Seeded pseudo-random numbers for the generators: every stream is derived
// from (seed, key), so output does not depend on generation order or threads.

/** 32-bit FNV-1a of a string, for deriving stream seeds. */
export function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** xoshiro128** : small, fast, good enough for synthetic data. */
export class Rng {
  private a: number; private b: number; private c: number; private d: number;
  private spare: number | null = null;

  constructor(seed: number, key = '') {
    let s = (seed ^ hash32(key)) >>> 0;
    const next = (): number => { s = (s + 0x9e3779b9) >>> 0; let z = s; z = Math.imul(z ^ (z >>> 16), 0x85ebca6b); z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35); return (z ^ (z >>> 16)) >>> 0; };
    this.a = next(); this.b = next(); this.c = next(); this.d = next();
  }

  u32(): number {
    const r = Math.imul(rotl(Math.imul(this.b, 5), 7), 9);
    const t = this.b << 9;
    this.c ^= this.a; this.d ^= this.b; this.b ^= this.c; this.a ^= this.d; this.c ^= t; this.d = rotl(this.d, 11);
    return r >>> 0;
  }

  /** Uniform in (0, 1). */
  next(): number { return (this.u32() + 0.5) / 4294967296; }

  normal(): number {
    if (this.spare !== null) { const s = this.spare; this.spare = null; return s; }
    let u: number, v: number, q: number;
    do { u = 2 * this.next() - 1; v = 2 * this.next() - 1; q = u * u + v * v; } while (q >= 1 || q === 0);
    const f = Math.sqrt((-2 * Math.log(q)) / q);
    this.spare = v * f;
    return u * f;
  }

  /** Gamma(shape, 1), Marsaglia-Tsang. */
  gamma(shape: number): number {
    if (shape < 1) return this.gamma(shape + 1) * Math.pow(this.next(), 1 / shape);
    const d = shape - 1 / 3, c = 1 / Math.sqrt(9 * d);
    for (;;) {
      let x: number, v: number;
      do { x = this.normal(); v = 1 + c * x; } while (v <= 0);
      v = v * v * v;
      const u = this.next();
      if (u < 1 - 0.0331 * x * x * x * x || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
    }
  }

  beta(a: number, b: number): number {
    const x = this.gamma(a), y = this.gamma(b);
    return x / (x + y);
  }

  /** Binomial(n, p): inversion for small means, a clamped normal approximation otherwise. */
  binomial(n: number, p: number): number {
    if (n <= 0 || p <= 0) return 0;
    if (p >= 1) return n;
    const mean = n * p;
    if (mean < 30) {
      const q = 1 - p, ratio = p / q;
      let prob = Math.pow(q, n), cdf = prob, k = 0;
      const u = this.next();
      while (u > cdf && k < n) { prob *= (ratio * (n - k)) / (k + 1); k++; cdf += prob; }
      return k;
    }
    const k = Math.round(mean + Math.sqrt(mean * (1 - p)) * this.normal());
    return Math.min(n, Math.max(0, k));
  }
}

const rotl = (x: number, k: number): number => (x << k) | (x >>> (32 - k));
