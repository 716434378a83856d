// A bench's options: `--name value` pairs on its command line, read the same way by every bench.

/** The value after `--name`, or dflt when the option is absent or nothing follows it. */
export function arg(name: string, dflt: string): string;
export function arg(name: string, dflt: string | null): string | null;
export function arg(name: string, dflt: string | null): string | null {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : dflt;
}
