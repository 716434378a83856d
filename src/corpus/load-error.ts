// A fault in a mirror found while loading it: which file, and what is wrong.
// Start-up refuses to serve when one is thrown.

export class LoadError extends Error {
  constructor(readonly file: string, problem: string) {
    super(`${file}: ${problem}`);
  }
}
