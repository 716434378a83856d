// Command-line arguments: `--key value`, `--key=value`, bare words. A flag's
// name is the API parameter or environment variable it stands for.

export class CliError extends Error {}

export interface Args {
  positional: string[];
  flags: Map<string, string>;
  help: boolean;
  /** Everything after the command name, as given (for commands that hand it on). */
  rest: string[];
}

export function parseArgs(argv: string[]): Args {
  const a: Args = { positional: [], flags: new Map(), help: false, rest: argv };
  for (let i = 0; i < argv.length; i++) {
    const t = argv[i]!;
    if (t === '--help' || t === '-h') { a.help = true; continue; }
    if (!t.startsWith('--')) { a.positional.push(t); continue; }
    const eq = t.indexOf('=');
    const key = t.slice(2, eq > 0 ? eq : undefined);
    if (key === '') throw new CliError(`empty flag '${t}'`);
    let value: string;
    if (eq > 0) value = t.slice(eq + 1);
    else if (i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) value = argv[++i]!;
    else value = 'true';
    if (a.flags.has(key)) throw new CliError(`--${key} is given twice`);
    a.flags.set(key, value);
  }
  return a;
}
