#!/usr/bin/env node
// The civicstream command: the server, and the same engine offline. Each
// command is a row of COMMANDS (its usage is its --help); `query` and
// `export` run the API's own route table in-process, so their output is the
// API's byte for byte.

import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFIG_VARS, PROJECT_ROOT, readConfig } from '../config.js';
import { LoadError } from '../corpus/load-error.js';
import { GOV_TYPES } from '../finance/catalog.js';
import { parseArgs, type Args, CliError } from './args.js';
import { apiKeys, openFinance, runRoute, QUERY_ROUTES, queryRoutesHelp, replyText, TABLE_CELL } from './offline.js';
import { financeRoutes } from '../finance/http/routes.js';
import { writeParquetPages } from '../finance/http/parquet-pages.js';
import { csvPages, writeCsvPages } from '../finance/http/csv-pages.js';
import { bulkOf } from '../finance/bulk-set.js';
import { prebuild } from '../finance/http/bulk-start.js';
import { prebuiltDir } from '../finance/bulk-store.js';
import { outFile } from './out-file.js';
import { secondsText } from '../progress.js';

interface Command {
  name: string;
  usage: string;
  summary: string;
  run(a: Args): Promise<void>;
}

const dist = (rel: string): string => fileURLToPath(new URL(`../../${rel}`, import.meta.url));
const envFlag = (env: string): string => `--${env.toLowerCase().replaceAll('_', '-')}`;

/** Runs one of the project's scripts with the rest of the arguments, as its own process. */
const script = (rel: string) => async (a: Args): Promise<void> => {
  const code = await new Promise<number>((resolve) => {
    const p = spawn(process.execPath, [dist(rel), ...a.rest], { stdio: 'inherit' });
    p.on('exit', (c) => resolve(c ?? 1));
  });
  if (code !== 0) process.exitCode = code;
};

const COMMANDS: Command[] = [
  {
    name: 'serve',
    summary: 'Serve both APIs (what npm start runs).',
    usage: `civicstream serve [flags]\n\nEach flag sets the environment variable of the same name (README, Configuration):\n${CONFIG_VARS.map((v) => `  ${envFlag(v.env).padEnd(22)} ${v.description} (default: ${v.default})`).join('\n')}`,
    run: async (a) => {
      for (const v of CONFIG_VARS) {
        const val = a.flags.get(envFlag(v.env).slice(2));
        if (val !== undefined) process.env[v.env] = val;
      }
      const known = new Set(CONFIG_VARS.map((v) => envFlag(v.env).slice(2)));
      for (const k of a.flags.keys()) if (!known.has(k)) throw new CliError(`serve: unknown flag --${k} (see civicstream serve --help)`);
      readConfig(); // refuse bad values here, with the variable's own message
      await import('../main.js');
    },
  },
  {
    name: 'query',
    summary: 'Answer an API question offline, from a mirror: same engine, same parameters, same output.',
    usage: `civicstream query <${Object.keys(QUERY_ROUTES).join('|')}> [--data <mirror>] [--format csv|json|table] [--<parameter> <value>]...\n\nEach name calls one API route (its defaults, from the route table):\n${queryRoutesHelp(financeRoutes)}\n\nEvery API parameter of the route is a flag of the same name (--govid, --state, --type, --years, --category, ...), in snake_case or kebab-case (--per_capita or --per-capita).\nspending and revenue are many governments' rows (the latest year unless --years); government-spending and government-revenue one government's history.\n--format csv is the API's CSV byte for byte where the route has one; json is the API's envelope; table cuts cells past ${TABLE_CELL} characters (ending them with …) and says which rows of how many it shows.\n--data defaults to FINANCE_DATA, else the bundled mirror.\n\nExamples:\n  civicstream query spending --state DE --type city --years 2011-2020 --format csv\n  civicstream query government-revenue --govid 062037161174 --category 'Property Tax' --format table`,
    run: async (a) => {
      const name = a.positional[0];
      if (name === undefined || !(name in QUERY_ROUTES)) throw new CliError(`query: name a route: ${Object.keys(QUERY_ROUTES).join(', ')}`);
      const format = a.flags.get('format') ?? 'json';
      if (!['csv', 'json', 'table'].includes(format)) throw new CliError(`query: --format must be csv, json or table; got '${format}'`);
      const off = await openFinance(a.flags.get('data'), a.flags.get('workers'));
      try {
        const params = new Map([...a.flags].filter(([k]) => k !== 'data' && k !== 'workers' && k !== 'format'));
        const r = await runRoute(off, name, params, format);
        const text = replyText(r, format);
        if (r.status !== 200) throw new CliError(`query: ${r.error ?? `status ${r.status}`}`);
        process.stdout.write(text);
      } finally {
        await off.close();
      }
    },
  },
  {
    name: 'export',
    summary: 'Write a whole flat table (spending or revenue, harmonized by default) as CSV or parquet, streamed, any size.',
    usage: 'civicstream export --out <file> [--data <mirror>] [--route spending|revenue] [--years 1967-2024] [--format csv|parquet] [--<parameter> <value>]...\n\nPages through the flat route 50,000 rows at a time and writes one CSV (one header) or one parquet file (typed columns, row groups of up to 2^20 rows), with a progress bar on stderr; a failed export leaves --out as it was.\nOther flags are the route\'s parameters (--state, --type, --basis, ...). With no --govid, --state or --type: every government, type by type.',
    run: async (a) => {
      const out = a.flags.get('out');
      if (!out) throw new CliError('export: --out <file> is required');
      const format = a.flags.get('format') ?? 'csv';
      if (format !== 'csv' && format !== 'parquet') throw new CliError(`export: --format must be csv or parquet; got '${format}'`);
      const route = a.flags.get('route') ?? 'spending';
      if (route !== 'spending' && route !== 'revenue') throw new CliError(`export: --route must be spending or revenue; got '${route}'`);
      const off = await openFinance(a.flags.get('data'), a.flags.get('workers'));
      try {
        const params = apiKeys(new Map([...a.flags].filter(([k]) => !['data', 'workers', 'out', 'route', 'format'].includes(k))));
        if (!params.has('years')) params.set('years', `${off.ctx.catalog.years[0]}-${off.ctx.catalog.maxYear}`);
        // No limit: a CSV page defaults to the route's cap (50,000 rows; fewer with subtype or recipe).
        params.set('format', 'csv');
        // With no selection, the whole corpus: each type of government in turn, under one header.
        const selections = params.has('type') || params.has('govid') || params.has('state')
          ? [params]
          : GOV_TYPES.map((type) => new Map([...params, ['type', type]]));
        const pages = csvPages(off.service, QUERY_ROUTES[route]!, selections, { label: 'export', fail: (m) => new CliError(m) });
        const fields = off.ctx.routes.find((r) => r.path === QUERY_ROUTES[route])!.rowFields ?? [];
        const t0 = performance.now();
        const file = outFile(out);
        const rows = await (format === 'csv' ? writeCsvPages(pages, file.path) : writeParquetPages(async () => (await pages.next()).value?.text ?? null, fields, file.path))
          .catch((e: unknown) => { file.failed(); throw e; });
        file.done();
        process.stderr.write(`export: ${rows.toLocaleString('en-US')} rows -> ${out} in ${secondsText((performance.now() - t0) / 1000)}\n`);
      } finally {
        await off.close();
      }
    },
  },
  {
    name: 'bulk',
    summary: 'Prebuild the bulk files (/api/v1/bulk) beside a mirror, so a server serves them from its start.',
    usage: 'civicstream bulk [--data <mirror>] [--out <dir>] [--workers N]\n\nWrites every published year of the spending and revenue tables as Parquet and gzip CSV, with index.json naming the manifest it was built from,\ninto --out (default <mirror>/bulk/, where the server looks). Files already there that match the index are kept.\nThe directory must be this user\'s and writable by no one else, as the server requires of a set it serves.',
    run: async (a) => {
      const off = await openFinance(a.flags.get('data'), a.flags.get('workers'));
      try {
        const out = path.resolve(a.flags.get('out') ?? prebuiltDir(off.ctx.catalog.dir));
        const set = bulkOf(off.ctx);
        const failed = await prebuild(set, off.service, out, 'bulk');
        const files = set.readyFiles;
        process.stdout.write(`bulk: ${files.length} files, ${files.reduce((n, f) => n + f.bytes, 0).toLocaleString('en-US')} bytes -> ${out}\n`);
        if (failed > 0) throw new Error(`bulk: ${failed} files failed (see the warnings above)`);
      } finally {
        await off.close();
      }
    },
  },
  {
    name: 'verify',
    summary: 'Check a mirror (finance or school draws) against its manifest: every file, sha256, row count and schema.',
    usage: 'civicstream verify <mirror>\n\nLoads the mirror the way the server does, without its load cache, and reports the first fault it finds (exit 1) or what it verified (exit 0).',
    run: async (a) => {
      const dir = a.positional[0];
      if (!dir) throw new CliError('verify: name the mirror directory');
      const abs = path.resolve(dir);
      const manifest = path.join(abs, 'manifest.json');
      if (!existsSync(manifest)) throw new CliError(`verify: ${manifest}: file is missing`);
      let school = false;
      try { school = Array.isArray(JSON.parse(readFileSync(manifest, 'utf8')).shards); } catch { /* the loader names the parse error */ }
      process.env.CIVICSTREAM_LOAD_CACHE = 'off';
      if (school) {
        const { loadArrests } = await import('../arrests/http/service.js');
        const ctx = await loadArrests(readConfig({ ...process.env, ARRESTS_DATA: abs }), { quiet: true, rebuild: true });
        process.stdout.write(`verify: ${abs}: school draws mirror OK: ${ctx.summaries.build.shards} shards, ${ctx.summaries.build.rows.toLocaleString('en-US')} draw rows, ${ctx.districts.length} districts\n`);
        return;
      }
      const off = await openFinance(abs, a.flags.get('workers'));
      try {
        const c = off.ctx;
        process.stdout.write(`verify: ${abs}: finance mirror OK: schema_version ${c.catalog.manifest.schemaVersion}, ${c.catalog.manifest.partitions.length} partitions (${c.catalog.years[0]}-${c.catalog.maxYear}), ${c.stats.rows.toLocaleString('en-US')} rows, sha256 and row counts as the manifest says\n`);
      } finally {
        await off.close();
      }
    },
  },
  { name: 'generate', summary: 'Write a corpus: finance (full-scale, from the fixture) or arrests (synthetic draws).', usage: 'civicstream generate finance --out <dir> [--rows N | --scale X] ...\ncivicstream generate arrests --out <dir> [--states DE,RI] [--districts N] ...\n\nThe options are those of npm run generate:finance-full and npm run generate:arrests.', run: async (a) => {
    const which = a.positional[0];
    if (which !== 'finance' && which !== 'arrests') throw new CliError('generate: name what to generate: finance or arrests');
    await script(which === 'finance' ? 'scripts/generate-finance-full.js' : 'scripts/generate-arrests.js')({ ...a, rest: a.rest.slice(1) });
  } },
  { name: 'build-estimates', summary: 'Summarise a school draws mirror into its estimates (summaries/ beside the draws).', usage: 'civicstream build-estimates [--data <dir>] [--workers N]', run: script('scripts/build-estimates.js') },
];

function help(): string {
  return `civicstream: US government finance and school arrest-rate estimates, served or offline.\n\nUsage: civicstream <command> [--help]\n\n${COMMANDS.map((c) => `  ${c.name.padEnd(16)} ${c.summary}`).join('\n')}\n\nProject: ${PROJECT_ROOT}\n`;
}

async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') { process.stdout.write(help()); return; }
  const cmd = COMMANDS.find((c) => c.name === name);
  if (!cmd) throw new CliError(`unknown command '${name}' (civicstream --help lists them)`);
  const a = parseArgs(rest);
  if (a.help) { process.stdout.write(`${cmd.usage}\n`); return; }
  await cmd.run(a);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  const msg = err instanceof LoadError ? `data fault in ${err.message}` : err instanceof Error ? err.message : String(err);
  process.stderr.write(`civicstream: ${msg.split('\n')[0]}\n`);
  process.exit(err instanceof CliError ? 2 : 1);
});
