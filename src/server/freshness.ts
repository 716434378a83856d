// Validators of cacheable answers. The corpus is immutable, so an answer is a
// pure function of its URL and the service's seed (corpus digest, code
// version, mirror URL): a strong ETag of the two, and revalidation is cheap.

import { hash } from 'node:crypto';

/** A 27-character digest of text or bytes (the one-shot hash: a third of createHash's cost, the same digest). */
export const shortDigest = (data: string | Uint8Array): string => hash('sha256', data, 'base64url').slice(0, 27);

/** ETag and Cache-Control: caches may reuse an answer for an hour and then ask again with If-None-Match. */
export function validatorsOf(seed: string, url: string): Record<string, string> {
  const tag = shortDigest(`${seed}\0${url}`);
  return { ETag: `"${tag}"`, 'Cache-Control': 'public, max-age=3600' };
}

/** If-None-Match: "*" or a comma-separated list of entity tags, compared weakly (RFC 9110 13.1.2). */
export function etagMatches(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}

/**
 * ETag and Cache-Control of a fixed file (the docs and explorer pages): the
 * digest of its bytes, so a new build's page is a new tag. Browsers revalidate
 * after five minutes, and the answer to that is a bodiless 304.
 */
export function assetValidators(body: string | Uint8Array): Record<string, string> {
  const tag = shortDigest(body);
  return { ETag: `"${tag}"`, 'Cache-Control': 'public, max-age=300' };
}
