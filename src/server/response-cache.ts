// A bounded LRU of answer bodies by canonical request URL (canonical.ts) and content coding. The data is immutable
// for the life of the process (a corpus build), so an answer computed once is
// the answer; hot queries of a public API are then served from memory.
// Bounded by bytes, keys and bodies both (RESPONSE_CACHE_MB, default 64; 0
// turns it off).

/** An answer as kept: its body as sent (in its content coding) and the headers that go with it. */
export interface Kept {
  body: Buffer;
  headers: Record<string, string> | undefined;
  /** A kept stream (kept-streams.ts): its media type, and that a hit is streamed, not written whole. Absent: a JSON envelope. */
  contentType?: string;
  stream?: boolean;
}

export class ResponseCache {
  private readonly map = new Map<string, Kept>();
  private bytes = 0;
  hits = 0;
  misses = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): Kept | undefined {
    const v = this.map.get(key);
    if (v === undefined) { this.misses++; return undefined; }
    this.hits++;
    this.map.delete(key);
    this.map.set(key, v);
    return v;
  }

  /** The largest body kept: an eighth of the cache, so one answer never evicts most of the others. */
  get maxEntryBytes(): number {
    return this.maxBytes / 8 - 512;
  }

  set(key: string, body: Kept): void {
    const size = entryBytes(key, body);
    if (size > this.maxBytes / 8) return;
    const old = this.map.get(key);
    if (old) { this.bytes -= entryBytes(key, old); this.map.delete(key); }
    this.map.set(key, body);
    this.bytes += size;
    while (this.bytes > this.maxBytes) {
      const [k, v] = this.map.entries().next().value as [string, Kept];
      this.map.delete(k);
      this.bytes -= entryBytes(k, v);
    }
  }

  stats(): { entries: number; bytes: number; hits: number; misses: number } {
    return { entries: this.map.size, bytes: this.bytes, hits: this.hits, misses: this.misses };
  }
}

/** An entry's bytes: its body, its key (two bytes a character at most), its headers (a few short strings) and the map's own share. */
const entryBytes = (key: string, kept: Kept): number => kept.body.length + 2 * key.length + 256;
