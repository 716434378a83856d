// Where `civicstream export` writes --out. A regular file (or a new one) is
// written under a temporary name beside it and renamed over it once whole, so
// an export that fails leaves what was there (or nothing), never a short file
// that looks whole, and never removes a file it did not write. A symbolic link
// is followed: the file it names is the one replaced. A device or a pipe
// (/dev/stdout) is written directly.

import { realpathSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';

export interface OutFile {
  /** Where the writer writes. */
  readonly path: string;
  /** The file is whole: it takes its name. */
  done(): void;
  /** The write failed: what it wrote goes (the writer has closed it). */
  failed(): void;
}

export function outFile(out: string): OutFile {
  let target = out;
  try {
    target = realpathSync(out);
    if (!statSync(target).isFile()) return { path: out, done: () => {}, failed: () => {} };
  } catch {
    // Not there yet: a new file.
  }
  const temp = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.partial`);
  return {
    path: temp,
    done: () => renameSync(temp, target),
    failed: () => rmSync(temp, { force: true }),
  };
}
