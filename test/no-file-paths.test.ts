// No answer reveals where the server's files are: with MIRROR_URL and
// ARRESTS_MIRROR_URL configured, no body of any route (every example call,
// the documents, errors, CSV) contains the project's or the data's path.

import { describe, expect, it } from 'vitest';
import { ROOT, startServer } from './helpers/server.js';

describe('no server file paths in answers', () => {
  it('every example call, document, error and CSV of both services is free of local paths when mirror URLs are configured', async () => {
    const s = await startServer({ WORKERS: '1', MIRROR_URL: 'https://mirror.example.org/finance', ARRESTS_MIRROR_URL: 'https://mirror.example.org/arrests' });
    try {
      const leaks: string[] = [];
      let checked = 0;
      for (const base of [s.url, s.arrestsUrl]) {
        const examples = (await (await fetch(`${base}/api/v1/examples`)).json()).data.map((e: any) => e.path as string);
        const extra = ['/', '/api/v1/', '/api/v1/health', '/openapi.json', '/api/v1/data-dictionary', '/api/v1/llms.txt', '/__docs__/', '/api/v1/nope', '/api/v1/governments/999999999999', '/api/v1/estimates/0000000', '/api/v1/spending?state=CA&type=city&format=csv&category=Police'];
        for (const p of [...examples, ...extra]) {
          const text = await (await fetch(`${base}${p}`)).text();
          checked++;
          if (text.includes(ROOT) || text.includes('/work/') || text.includes('/tmp/')) leaks.push(`${base}${p}`);
        }
      }
      expect(checked).toBeGreaterThan(30);
      expect(leaks).toEqual([]);
    } finally {
      await s.stop();
    }
  });
});
