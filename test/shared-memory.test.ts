// Shared columns: allocation, and the one full GC at start-up that frees the
// columns a load replaced (collectGarbage).

import { describe, expect, it } from 'vitest';
import { allocColumn, collectGarbage } from '../dist/src/corpus/shared.js';

describe('collectGarbage', () => {
  it('frees shared columns nothing references any more, at once', () => {
    collectGarbage();
    const before = process.memoryUsage().arrayBuffers;
    let col: ReturnType<typeof allocColumn<'u32'>> | null = allocColumn('u32', 32 * 1024 * 1024); // 128 MB
    col.view[col.view.length - 1] = 1;
    expect(process.memoryUsage().arrayBuffers - before).toBeGreaterThanOrEqual(128 * 1024 * 1024);
    col = null;
    collectGarbage();
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 * 1024 * 1024);
  });
});
