// The fixed files (pages, scripts, maps) in each coding offered, compressed the first time a client asks for
// one in that coding and kept. Compressing every file in every coding at start took 100-250 ms of each serving
// thread's start (profiled, 2026-11-28) for files most servers never send. The compression runs where any
// answer's does (compress.ts encodeAnswer: on libuv's threads past a few KB), never on the serving thread: brotli
// of the 1.7 MB docs bundle takes 70-600 ms. Clients that ask at once share the one compression.

import type { Answer } from './answer.js';
import { encodeAnswer } from './compress.js';
import { codedValidators, type Encoding } from './encoding.js';
import { assetValidators } from './freshness.js';
import type { Asset } from './service.js';

type BytesAnswer = Answer & { kind: 'bytes' };

export interface FixedFile {
  contentType: string;
  /** Its validators in the coding (an ETag of its own per coding): at once, for a 304 before any compression. */
  validators(enc: Encoding): Record<string, string>;
  /** The file in the coding: compressed once (a promise until then), the same answer every time after. */
  answer(enc: Encoding): Answer | Promise<Answer>;
}

export function fixedFile(a: Asset): FixedFile {
  const base = assetValidators(a.body);
  const validators = new Map<Encoding, Record<string, string>>();
  const coded = new Map<Encoding, Answer | Promise<Answer>>();
  const validatorsOf = (enc: Encoding): Record<string, string> => {
    let v = validators.get(enc);
    if (v === undefined) validators.set(enc, (v = codedValidators(base, enc)!));
    return v;
  };
  return {
    contentType: a.contentType,
    validators: validatorsOf,
    answer(enc) {
      let c = coded.get(enc);
      if (c === undefined) {
        const v = validatorsOf(enc);
        const plain: BytesAnswer = { kind: 'bytes', status: 200, contentType: a.contentType, body: a.body, headers: { ...a.headers, ...v } };
        c = encodeAnswer(plain, enc);
        coded.set(enc, c);
        // Once compressed, kept as the answer itself: later asks get it at once, not through a promise.
        if (c instanceof Promise) c.then((done) => { coded.set(enc, done); }, () => { coded.delete(enc); });
      }
      return c;
    },
  };
}
