// The layout the code keeps (issue 18): no file in src/ or workers/ over 400
// lines (src/client/routes.gen.ts is generated), no function over 80 lines,
// no import loop in src/, workers/, bench/ or scripts/ (type-only imports
// included), nothing under workers/ loads, directly or through other files,
// the HTTP layer (src/server/), a route table or a parameter module, and the
// tests import the code from dist/ only (never src/ or bench/ sources); and
// the layering (issue 30): only the HTTP layer (src/server/, each service's
// http/ folder) and the entry points (src/main.ts, src/front.ts, the CLI)
// import src/server/ or an http/ folder, only the CLI and the entry points
// import src/cli/, and workers import neither, even through other files.
// A failure lists every violation. The checker is tried on planted fixtures
// first, so a quiet pass on the real tree means something.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkStructure, MAX_FILE_LINES, MAX_FUNCTION_LINES, testSourceImports } from './helpers/structure.js';
import { ROOT } from './helpers/server.js';

describe('the structure checker on planted fixtures', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'civicstream-structure-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const plant = (file: string, text: string): void => {
    mkdirSync(path.dirname(path.join(tmp, file)), { recursive: true });
    writeFileSync(path.join(tmp, file), text);
  };
  const body = (n: number): string => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};\n`).join('');
  // A function of exactly 80 lines passes, 81 does not; so does a file of exactly 400 lines.
  plant('src/fine.ts', `export function fine(): void {\n${body(78)}}\n`);
  plant('src/long-fn.ts', `export const long = (): void => {\n${body(79)}};\n`);
  plant('src/at-limit.ts', body(400));
  plant('src/long-file.ts', body(401));
  plant('src/client/routes.gen.ts', body(1000));
  // A loop through a type-only import, and a loop through export ... from.
  plant('src/a.ts', "import type { B } from './b.js';\nexport type A = B;\n");
  plant('src/b.ts', "import { a } from './a.js';\nexport type B = typeof a;\n");
  plant('scripts/x.ts', "export * from './y.js';\n");
  plant('scripts/y.ts', "import { x } from './x.js';\nexport const y = x;\n");
  // Workers reaching the HTTP layer through another file, a route table and a parameter module directly.
  plant('src/finance/helper.ts', "import { h } from '../server/http.js';\nexport const helper = h;\n");
  plant('src/server/http.ts', 'export const h = 1;\n');
  plant('src/finance/routes.ts', 'export const r = 1;\n');
  plant('src/finance/money-params.ts', 'export type P = 1;\n');
  plant('src/finance/columns.ts', 'export const c = 1;\n');
  plant('workers/job.ts', "import { helper } from '../src/finance/helper.js';\nimport { c } from '../src/finance/columns.js';\nimport type { P } from '../src/finance/money-params.js';\nexport const job = [helper, c];\n");
  plant('workers/index.ts', "import { job } from './job.js';\nexport default async () => (await import('../src/finance/routes.js')).r + job.length;\n");
  // The layering (issue 30): the domain reaching the HTTP layer or a service's http/ folder (a type is enough),
  // the HTTP layer reaching the CLI, and workers reaching a service's http/ folder or the CLI. The HTTP layer,
  // the entry points and the CLI may import the server; the entry points may import the CLI.
  plant('src/finance/rules.ts', "import type { Page } from './http/page.js';\nexport type R = Page;\n");
  plant('src/finance/http/page.ts', "import { h } from '../../server/http.js';\nexport type Page = typeof h;\n");
  plant('src/server/x.ts', "export * from '../cli/args.js';\n");
  plant('src/cli/args.ts', "import { h } from '../server/http.js';\nexport const a = h;\n");
  plant('src/main.ts', "import { a } from './cli/args.js';\nimport { h } from './server/http.js';\nimport type { Page } from './finance/http/page.js';\nexport const m: [number, number, Page?] = [a, h];\n");
  plant('workers/layers.ts', "import type { Page } from '../src/finance/http/page.js';\nimport { a } from '../src/cli/args.js';\nexport const w: [number, Page?] = [a];\n");

  const got = checkStructure(tmp);

  it(`reports files over ${MAX_FILE_LINES} lines, not the generated client`, () => {
    expect(got.longFiles).toEqual([`src/long-file.ts: 401 lines (limit ${MAX_FILE_LINES})`]);
  });

  it(`reports functions over ${MAX_FUNCTION_LINES} lines`, () => {
    expect(got.longFunctions).toEqual([`src/long-fn.ts:1 long: 81 lines (limit ${MAX_FUNCTION_LINES})`]);
  });

  it('reports import loops, type-only and export-from hops included', () => {
    expect(got.loops).toEqual(['scripts/x.ts -> scripts/y.ts -> scripts/x.ts', 'src/a.ts -(type)-> src/b.ts -> src/a.ts']);
  });

  it('reports tests that import sources instead of dist/, or bench code', () => {
    plant('test/helpers/good.ts', "export * from '../../dist/src/x.js';\nexport * from '../../scripts/tool.mjs';\n");
    plant('scripts/tool.mjs', 'export const t = 1;\n');
    plant('test/x.test.ts', "import type { A } from '../src/a.js';\nimport { fine } from '../src/fine.js';\nimport { g } from './helpers/good.js';\n");
    plant('test/helpers/bad.ts', "export * from '../../bench/lib/server.js';\n");
    expect(testSourceImports(tmp)).toEqual(['test/helpers/bad.ts -> bench/lib/server.ts', 'test/x.test.ts -(type)-> src/a.ts', 'test/x.test.ts -> src/fine.ts']);
  });

  it('reports what workers load, with the chain of imports', () => {
    expect(got.workerLoads).toEqual([
      'workers/index.ts -> src/finance/routes.ts  (a route table or route spec)',
      'workers/job.ts -(type)-> src/finance/money-params.ts  (a parameter module)',
      'workers/job.ts -> src/finance/helper.ts -> src/server/http.ts  (the HTTP layer (src/server/))',
      'workers/layers.ts -(type)-> src/finance/http/page.ts  (a service\'s HTTP layer (src/<service>/http/))',
      'workers/layers.ts -> src/cli/args.ts  (the CLI (src/cli/))',
    ]);
  });

  it('reports imports across the layers: the domain to the HTTP layer, anything but the CLI and the entry points to the CLI', () => {
    expect(got.layers).toEqual([
      'src/finance/helper.ts -> src/server/http.ts  (only the HTTP layer and the entry points import src/server/)',
      'src/finance/rules.ts -(type)-> src/finance/http/page.ts  (the domain imports no http/ folder)',
      'src/server/x.ts -> src/cli/args.ts  (only the CLI and the entry points import src/cli/)',
      'workers/layers.ts -(type)-> src/finance/http/page.ts  (the domain imports no http/ folder)',
      'workers/layers.ts -> src/cli/args.ts  (only the CLI and the entry points import src/cli/)',
    ]);
  });
});

describe('the structure of the code (issue 18)', () => {
  const got = checkStructure(ROOT);
  const none = (list: string[], what: string) => expect(list, `${list.length} ${what}:\n${list.join('\n')}`).toEqual([]);

  it(`no file in src/ or workers/ over ${MAX_FILE_LINES} lines (generated files aside)`, () => none(got.longFiles, 'files too long'));
  it(`no function in src/ or workers/ over ${MAX_FUNCTION_LINES} lines`, () => none(got.longFunctions, 'functions too long'));
  it('no import loop in src/, workers/, bench/, scripts/ (type-only imports included)', () => none(got.loops, 'import loops'));
  it('tests import the code from dist/ only: never its sources, never bench code', () => none(testSourceImports(ROOT), 'source imports in test/'));
  it('nothing under workers/ loads the HTTP layer (src/server/, an http/ folder), the CLI, a route table or a parameter module, directly or through other files', () => none(got.workerLoads, 'loads from workers/'));
  it('only the HTTP layer (src/server/, src/<service>/http/), the entry points and the CLI import src/server/ or an http/ folder; only the CLI and the entry points import src/cli/ (issue 30)', () => none(got.layers, 'imports across the layers'));
});
