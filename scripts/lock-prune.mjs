#!/usr/bin/env node
// Prunes from package-lock.json the optional platform dependencies that the
// lock does not resolve. The npm registry reachable from this project's
// machines carries only some platforms' optional binaries, so npm writes a
// lock that names them without entries, and `npm ci` then refuses the lock as
// out of sync. Run after every `npm install`:  npm run lock:prune

import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const present = new Set(Object.keys(lock.packages).filter(Boolean).map((k) => k.slice(k.lastIndexOf('node_modules/') + 13)));
const removed = [];
for (const entry of Object.values(lock.packages)) {
  for (const name of Object.keys(entry.optionalDependencies ?? {})) {
    if (!present.has(name)) {
      delete entry.optionalDependencies[name];
      removed.push(name);
    }
  }
}
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`lock:prune: removed ${removed.length} unresolved optional platform dependencies`);
