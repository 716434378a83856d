// The address a request is charged to by the rate limiter (issue 20): the
// socket peer, or, behind a proxy the operator trusts (TRUST_PROXY), the
// client that proxy names in X-Forwarded-For.
//
// X-Forwarded-For is written by whoever sent the request: a client can put
// any address in it. Only the entries appended by trusted proxies are facts,
// so the walk goes from the right (the nearest hop) and stops at the first
// address that is not a trusted proxy: that is the client. A client that
// spoofs the header only adds entries left of it, which are never read; an
// untrusted peer's header is not read at all.
//
// Plain text and numbers, no transport: TRUST_PROXY is checked with it at
// start (src/config.ts); the uWS side, reading the peer and the header, is
// src/server/client-address.ts.

/** The proxies whose X-Forwarded-For entries are believed. */
export interface TrustedProxies {
  /** The ranges in normal form ('10.0.0.0/8', '::1/128'), for a start-up log line. */
  readonly entries: readonly string[];
  /** Per range, 4 network words then 4 mask words (IPv4 as IPv4-mapped IPv6, ::ffff:0:0/96). */
  readonly ranges: Uint32Array;
}

// One address being parsed, as 8 groups of 16 bits. The module is synchronous,
// so one scratch array serves every call and parsing allocates nothing for IPv4.
const groups = new Uint16Array(8);
const HEX = /^[0-9a-fA-F]{1,4}$/;

/** Dotted IPv4 in text[start, end) as a 32-bit number, or -1. No leading zeros: '010' may mean octal 8 to some tools. */
function parseV4(text: string, start: number, end: number): number {
  let value = 0;
  let parts = 0;
  let i = start;
  while (parts < 4) {
    let octet = 0;
    let digits = 0;
    for (; i < end; i++) {
      const c = text.charCodeAt(i) - 48;
      if (c < 0 || c > 9) break;
      if (digits === 1 && octet === 0) return -1;
      octet = octet * 10 + c;
      if (++digits > 3 || octet > 255) return -1;
    }
    if (digits === 0) return -1;
    value = value * 256 + octet;
    parts++;
    if (parts < 4) {
      if (text.charCodeAt(i) !== 46 /* . */ || i >= end) return -1;
      i++;
    }
  }
  return i === end ? value : -1;
}

/** IPv6 text (no brackets, no zone) into `groups`; false if malformed. */
function parseV6(text: string): boolean {
  const gap = text.indexOf('::');
  if (gap !== -1 && text.indexOf('::', gap + 1) !== -1) return false;
  const left = gap === -1 ? text : text.slice(0, gap);
  const right = gap === -1 ? '' : text.slice(gap + 2);
  const head = left === '' ? [] : left.split(':');
  const tail = right === '' ? [] : right.split(':');
  // A dotted IPv4 may end the address, as two groups (::ffff:1.2.3.4).
  const pieces = gap === -1 ? head : tail;
  const last = pieces.length > 0 ? pieces[pieces.length - 1]! : '';
  let v4 = -1;
  if (last.includes('.')) {
    v4 = parseV4(last, 0, last.length);
    if (v4 < 0) return false;
    pieces.pop();
  }
  const count = head.length + tail.length + (v4 >= 0 ? 2 : 0);
  if (gap === -1 ? count !== 8 : count > 7) return false;
  groups.fill(0);
  for (let i = 0; i < head.length; i++) {
    if (!HEX.test(head[i]!)) return false;
    groups[i] = parseInt(head[i]!, 16);
  }
  const from = 8 - tail.length - (v4 >= 0 ? 2 : 0);
  for (let i = 0; i < tail.length; i++) {
    if (!HEX.test(tail[i]!)) return false;
    groups[from + i] = parseInt(tail[i]!, 16);
  }
  if (v4 >= 0) {
    groups[6] = v4 >>> 16;
    groups[7] = v4 & 0xffff;
  }
  return true;
}

/** An address without brackets or port into `groups` (IPv4 as IPv4-mapped); false if malformed. */
function parseBare(text: string): boolean {
  if (text.includes(':')) return !text.includes('%') && parseV6(text);
  const v4 = parseV4(text, 0, text.length);
  if (v4 < 0) return false;
  groups.fill(0, 0, 5);
  groups[5] = 0xffff;
  groups[6] = v4 >>> 16;
  groups[7] = v4 & 0xffff;
  return true;
}

/**
 * One X-Forwarded-For entry or peer into `groups`, its port stripped: '1.2.3.4', '1.2.3.4:5678',
 * '::1', '[::1]', '[::1]:443'. A bare IPv6 address keeps every colon as its own ('::1:443' is an address).
 */
function parseEntry(raw: string): boolean {
  const text = raw.trim();
  if (text.charCodeAt(0) === 91 /* [ */) {
    const close = text.indexOf(']');
    if (close < 0) return false;
    const rest = text.slice(close + 1);
    if (rest !== '' && !/^:\d{1,5}$/.test(rest)) return false;
    return text.includes(':') && parseV6(text.slice(1, close));
  }
  const colon = text.indexOf(':');
  if (colon > 0 && text.indexOf(':', colon + 1) < 0) {
    if (!/^\d{1,5}$/.test(text.slice(colon + 1))) return false;
    return parseBare(text.slice(0, colon));
  }
  return parseBare(text);
}

const isMapped = (): boolean => groups[0] === 0 && groups[1] === 0 && groups[2] === 0 && groups[3] === 0 && groups[4] === 0 && groups[5] === 0xffff;

/** `groups` in normal form: IPv4-mapped as dotted IPv4, IPv6 as RFC 5952 text (lower case, longest zero run as ::). */
function formatGroups(): string {
  if (isMapped()) return `${groups[6]! >>> 8}.${groups[6]! & 255}.${groups[7]! >>> 8}.${groups[7]! & 255}`;
  let bestAt = -1;
  let bestLen = 1; // a single zero group is written as 0, not ::
  for (let i = 0; i < 8; i++) {
    if (groups[i] !== 0) continue;
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) { bestAt = i; bestLen = j - i; }
    i = j;
  }
  const hex = (from: number, to: number): string => Array.from(groups.subarray(from, to), (g) => g.toString(16)).join(':');
  if (bestAt < 0) return hex(0, 8);
  return `${hex(0, bestAt)}::${hex(bestAt + bestLen, 8)}`;
}

/** Whether `groups` falls in one of the ranges. */
function inRanges(ranges: Uint32Array): boolean {
  const w0 = ((groups[0]! << 16) | groups[1]!) >>> 0;
  const w1 = ((groups[2]! << 16) | groups[3]!) >>> 0;
  const w2 = ((groups[4]! << 16) | groups[5]!) >>> 0;
  const w3 = ((groups[6]! << 16) | groups[7]!) >>> 0;
  for (let r = 0; r < ranges.length; r += 8) {
    if (((w0 & ranges[r + 4]!) >>> 0) === ranges[r] && ((w1 & ranges[r + 5]!) >>> 0) === ranges[r + 1]
      && ((w2 & ranges[r + 6]!) >>> 0) === ranges[r + 2] && ((w3 & ranges[r + 7]!) >>> 0) === ranges[r + 3]) return true;
  }
  return false;
}

/** One TRUST_PROXY piece into 8 words of `ranges` at `at`; returns its normal form. */
function parseRange(piece: string, spec: string, ranges: Uint32Array, at: number): string {
  const bad = (why: string): Error => new Error(`TRUST_PROXY: '${piece}' ${why} (in '${spec}').`);
  const slash = piece.indexOf('/');
  const addr = slash < 0 ? piece : piece.slice(0, slash);
  if (!parseBare(addr)) throw bad('is not an IPv4 or IPv6 address or CIDR range');
  // A prefix counts the bits of the notation written: /8 of 10.0.0.0, /104 of ::ffff:10.0.0.0.
  const v4 = !addr.includes(':');
  const max = v4 ? 32 : 128;
  let prefix = max;
  if (slash >= 0) {
    const p = piece.slice(slash + 1);
    prefix = /^\d{1,3}$/.test(p) ? Number(p) : NaN;
    if (!(prefix <= max)) throw bad(`has a prefix length that is not a whole number from 0 to ${max}`);
  }
  const bits = v4 ? prefix + 96 : prefix;
  for (let w = 0; w < 4; w++) {
    const keep = Math.max(0, Math.min(32, bits - w * 32));
    const mask = keep === 0 ? 0 : (0xffffffff << (32 - keep)) >>> 0;
    const word = ((groups[w * 2]! << 16) | groups[w * 2 + 1]!) >>> 0;
    // A typo such as 10.0.0.1/8 for 10.0.0.0/8 (or /8 for /24) is refused rather than guessed at.
    if ((word & ~mask) !== 0) throw bad(`has bits set past its /${prefix} prefix`);
    ranges[at + w] = word;
    ranges[at + 4 + w] = mask;
  }
  // The normal form writes an IPv4-mapped range as IPv4; one wider than the mapped block stays as written.
  if (v4 || !isMapped()) return `${formatGroups()}/${prefix}`;
  return bits >= 96 ? `${formatGroups()}/${bits - 96}` : piece;
}

/** Parses a TRUST_PROXY value: comma-separated IPv4/IPv6 addresses and CIDR ranges; '' trusts none. Throws naming the bad piece. */
export function parseTrustedProxies(spec: string): TrustedProxies {
  const pieces = spec.split(',').map((p) => p.trim()).filter((p) => p !== '');
  const ranges = new Uint32Array(pieces.length * 8);
  const entries = pieces.map((p, i) => parseRange(p, spec, ranges, i * 8));
  return { entries, ranges };
}

/**
 * The client a request is charged to: the peer, unless the peer is a trusted proxy; then the right-most
 * X-Forwarded-For address that is not itself a trusted proxy, or the left-most if all are. A malformed
 * entry stops the walk and the last good address (or the peer) is used: what lies left of it was
 * written by someone we cannot vouch for. Addresses in normal form (see formatGroups), ports stripped.
 */
export function clientAddress(peer: string, forwardedFor: string, trusted: TrustedProxies): string {
  if (!parseEntry(peer)) return peer;
  let client = formatGroups();
  if (trusted.ranges.length === 0 || !inRanges(trusted.ranges)) return client;
  let end = forwardedFor.length;
  while (end > 0) {
    const comma = forwardedFor.lastIndexOf(',', end - 1);
    if (!parseEntry(forwardedFor.slice(comma + 1, end))) return client;
    client = formatGroups();
    if (!inRanges(trusted.ranges)) return client;
    end = comma < 0 ? 0 : comma;
  }
  return client;
}

/** A 16-byte IPv6 address in normal form ('127.0.0.1' for the IPv4-mapped form, '::1' for the expanded one). */
export function ipv6BytesText(raw: Uint8Array): string {
  for (let i = 0; i < 8; i++) groups[i] = (raw[i * 2]! << 8) | raw[i * 2 + 1]!;
  return formatGroups();
}
