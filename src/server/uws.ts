// Loads uWebSockets.js and refuses the slow pure-JS fallback the unofficial
// build silently switches to when its native binary does not load: a public
// bulk API on the fallback would be an order of magnitude slower, and nobody
// would notice until it was under load.

import { createRequire } from 'node:module';
import type * as UWS from 'uWebSockets.js';

const require = createRequire(import.meta.url);

export type { UWS };

export function loadUws(): typeof UWS {
  const uws = require('uWebSockets.js') as typeof UWS;
  if (typeof uws.getParts !== 'function' || typeof uws.us_socket_local_port !== 'function') {
    throw new Error(
      'uWebSockets.js loaded its JavaScript fallback, not the native binary (Node ' +
        `${process.versions.node}, ABI ${process.versions.modules}, ${process.platform}-${process.arch}). ` +
        'Refusing to start: use Node 20 on linux-x64 (glibc 2.36 or later), and do not set UWS_USE_FALLBACK.',
    );
  }
  return uws;
}
