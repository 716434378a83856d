// Any JSON value written as UTF-8 straight into a ByteWriter: exactly the
// bytes of JSON.stringify's text, with two savings for an envelope's meta and
// provenance (issue 32). Objects registered as fixed (the same for every
// answer of a corpus: the manifest block, the units conversion, the CPI
// series) are copied from bytes serialized once; and no string is made, so the
// body is not walked again to size it and again to encode it. Property-tested
// against JSON.stringify (test/json-value.test.ts).

import { ByteWriter, utf8 } from './byte-writer.js';

/** The serialized bytes of every value registered with fixedJson. */
const fixed = new WeakMap<object, Uint8Array>();

/**
 * v, frozen (deeply) and registered: writeJson copies its JSON from bytes made here, once. Only for values
 * that are the same in every answer that carries them; freezing makes a later change throw, not go unseen.
 */
export function fixedJson<T extends object>(v: T): T {
  if (fixed.has(v)) return v;
  fixed.set(deepFreeze(v), utf8(JSON.stringify(v)));
  return v;
}

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
  }
  return v;
}

const QUOTE = 0x22, COMMA = 0x2c, COLON = 0x3a;

/** v as JSON.stringify(v) writes it; a value JSON.stringify drops (undefined, a function) writes null, as in an array. */
export function writeJson(w: ByteWriter, v: unknown): void {
  switch (typeof v) {
    case 'string': writeString(w, v); return;
    case 'number': if (Number.isFinite(v)) w.number(v); else w.text('null'); return;
    case 'boolean': w.text(v ? 'true' : 'false'); return;
    case 'object':
      if (v === null) { w.text('null'); return; }
      if (Array.isArray(v)) { writeArray(w, v); return; }
      writeObject(w, v as Record<string, unknown>);
      return;
    case 'bigint': JSON.stringify(v); return; // throws JSON.stringify's own TypeError
    default: w.text('null');
  }
}

function writeArray(w: ByteWriter, a: unknown[]): void {
  const bytes = fixed.get(a);
  if (bytes !== undefined) { w.bytes(bytes); return; }
  w.byte(0x5b);
  for (let i = 0; i < a.length; i++) {
    if (i > 0) w.byte(COMMA);
    writeJson(w, a[i]);
  }
  w.byte(0x5d);
}

function writeObject(w: ByteWriter, o: Record<string, unknown>): void {
  const bytes = fixed.get(o);
  if (bytes !== undefined) { w.bytes(bytes); return; }
  // Anything but a plain object (a Date and its toJSON, a boxed string, a Map) is JSON.stringify's to write.
  const proto = Object.getPrototypeOf(o);
  if ((proto !== Object.prototype && proto !== null) || typeof o.toJSON === 'function') { w.text(JSON.stringify(o) ?? 'null'); return; }
  w.byte(0x7b);
  let first = true;
  // for-in walks own keys in JSON.stringify's order (integer keys ascending, then insertion order); a plain
  // object inherits no enumerable keys.
  for (const k in o) {
    const v = o[k];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    if (!first) w.byte(COMMA);
    first = false;
    writeString(w, k);
    w.byte(COLON);
    writeJson(w, v);
  }
  w.byte(0x7d);
}

/**
 * A string as JSON: ASCII without quotes, backslashes or control characters (nearly all of an envelope's,
 * the SQL included) is written as it is; anything else goes through JSON.stringify (escapes, and lone
 * surrogates, which it escapes and the encoder would replace).
 */
function writeString(w: ByteWriter, s: string): void {
  const len = s.length;
  w.reserve(len + 2);
  const start = w.n;
  const buf = w.buf;
  let n = start;
  buf[n++] = QUOTE;
  if (len <= 64) {
    for (let k = 0; k < len; k++) {
      const c = s.charCodeAt(k);
      if (c < 0x20 || c === QUOTE || c === 0x5c || c >= 0x7f) { w.n = start; w.text(JSON.stringify(s)); return; }
      buf[n++] = c;
    }
  } else {
    // A long one through the encoder, then its bytes checked: fewer steps than a loop over the string.
    const r = w.encodeAt(s, n);
    if (r !== len) { w.n = start; w.text(JSON.stringify(s)); return; }
    for (const end = n + len; n < end; n++) {
      const c = buf[n]!;
      if (c < 0x20 || c === QUOTE || c === 0x5c || c >= 0x7f) { w.n = start; w.text(JSON.stringify(s)); return; }
    }
  }
  buf[n++] = QUOTE;
  w.n = n;
}
