// The structure checker behind test/structure.test.ts: a function over a root
// path (so it can be tried on planted fixtures) that parses every .ts file with
// the TypeScript compiler API and reports, as readable lines, the files and
// functions too long to read on a screen or two, the import loops, and what
// the worker threads load that they must not, and the imports that cross the
// layering (the domain reaching the HTTP layer, anything but the CLI and the
// entry points reaching the CLI).

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export const MAX_FILE_LINES = 400;
export const MAX_FUNCTION_LINES = 80;
/** Generated, not read by hand: exempt from the length limits. */
export const GENERATED = ['src/client/routes.gen.ts'];
/** Where the length limits apply, and where import loops are looked for. */
export const SIZED_DIRS = ['src', 'workers'];
export const GRAPH_DIRS = ['src', 'workers', 'bench', 'scripts'];

export interface Edge {
  to: string;
  /** Type-only imports count: a loop of types is still a loop, and a type drags its module's layer along. */
  typeOnly: boolean;
}

export interface Violations {
  longFiles: string[];
  longFunctions: string[];
  loops: string[];
  workerLoads: string[];
  layers: string[];
}

/** Why a module must not be loaded by a worker thread, or undefined when it may be. */
export function forbiddenForWorkers(file: string): string | undefined {
  const base = path.posix.basename(file);
  if (file.startsWith('src/server/')) return 'the HTTP layer (src/server/)';
  if (isServiceHttp(file)) return "a service's HTTP layer (src/<service>/http/)";
  if (file.startsWith('src/cli/')) return 'the CLI (src/cli/)';
  if (base.includes('route')) return 'a route table or route spec';
  if (base === 'params.ts' || base.endsWith('-params.ts')) return 'a parameter module';
  return undefined;
}

/**
 * The layering (issue 30). The HTTP layer is src/server/ and each service's http/ folder (route tables,
 * parameters, page formats, docs, the service's wiring); the domain is everything else in src/ (the engine,
 * the pool, the corpus, the config) and workers/. The entry points start the process (src/main.ts, the front
 * threads' src/front.ts) and the CLI drives a service through inject(): they are the transport's users and may
 * import anything. So only the HTTP layer and the entry points import src/server/ or an http/ folder, and only
 * the CLI and the entry points import src/cli/.
 */
export const ENTRY_POINTS = ['src/main.ts', 'src/front.ts'];
const isServiceHttp = (f: string): boolean => /^src\/[^/]+\/http\//.test(f);
const isCli = (f: string): boolean => f.startsWith('src/cli/');
/** May import the HTTP layer: the HTTP layer itself, the entry points and the CLI. */
const mayImportHttp = (f: string): boolean => f.startsWith('src/server/') || isServiceHttp(f) || isCli(f) || ENTRY_POINTS.includes(f);

/** Why an import crosses the layering, or undefined when it may be made. */
export function layerBreach(from: string, to: string): string | undefined {
  if (to.startsWith('src/server/') && !mayImportHttp(from)) return 'only the HTTP layer and the entry points import src/server/';
  if (isServiceHttp(to) && !mayImportHttp(from)) return 'the domain imports no http/ folder';
  if (isCli(to) && !isCli(from) && !ENTRY_POINTS.includes(from)) return 'only the CLI and the entry points import src/cli/';
  return undefined;
}

function tsFiles(root: string, dirs: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    const abs = path.join(root, rel);
    if (!existsSync(abs)) return;
    for (const name of readdirSync(abs).sort()) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      const child = path.posix.join(rel, name);
      if (statSync(path.join(root, child)).isDirectory()) walk(child);
      else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(child);
    }
  };
  for (const d of dirs) walk(d);
  return out;
}

const parse = (root: string, file: string): ts.SourceFile =>
  ts.createSourceFile(file, readFileSync(path.join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);

/** A relative specifier as a root-relative path ('./x.js' is './x.ts' when that exists); undefined for packages. */
function resolve(root: string, from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
  for (const candidate of [target.replace(/\.js$/, '.ts'), target.replace(/\.mjs$/, '.mts'), target, `${target}.ts`, `${target}/index.ts`]) {
    if (existsSync(path.join(root, candidate)) && statSync(path.join(root, candidate)).isFile()) return candidate;
  }
  return target.replace(/\.js$/, '.ts');
}

/** Every module a file names: import (type or not), export ... from, import(), and import('...') types. */
export function importsOf(root: string, file: string, sf = parse(root, file)): Edge[] {
  const edges: Edge[] = [];
  const add = (spec: ts.Node | undefined, typeOnly: boolean): void => {
    if (!spec || !ts.isStringLiteralLike(spec)) return;
    const to = resolve(root, file, spec.text);
    if (to) edges.push({ to, typeOnly });
  };
  const visit = (n: ts.Node): void => {
    if (ts.isImportDeclaration(n)) {
      const c = n.importClause;
      const allTypes = !!c && (c.isTypeOnly || (!c.name && !!c.namedBindings && ts.isNamedImports(c.namedBindings) && c.namedBindings.elements.length > 0 && c.namedBindings.elements.every((e) => e.isTypeOnly)));
      add(n.moduleSpecifier, allTypes);
    } else if (ts.isExportDeclaration(n)) {
      add(n.moduleSpecifier, n.isTypeOnly);
    } else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(n.arguments[0], false);
    } else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument)) {
      add(n.argument.literal, true);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return edges;
}

const lineOf = (sf: ts.SourceFile, pos: number): number => sf.getLineAndCharacterOfPosition(pos).line + 1;

function functionName(n: ts.Node): string {
  if ((ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isFunctionExpression(n) || ts.isAccessor(n)) && n.name) return n.name.getText();
  if (ts.isConstructorDeclaration(n)) return 'constructor';
  const p = n.parent;
  if (p && (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) && p.name) return p.name.getText();
  return '(anonymous)';
}

/** Functions longer than the limit: declarations, methods, accessors, constructors, arrows and function expressions. */
export function longFunctionsOf(sf: ts.SourceFile, file: string, limit = MAX_FUNCTION_LINES): string[] {
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isFunctionLike(n) && 'body' in n && n.body) {
      const start = lineOf(sf, n.getStart(sf)), lines = lineOf(sf, n.getEnd()) - start + 1;
      if (lines > limit) out.push(`${file}:${start} ${functionName(n)}: ${lines} lines (limit ${limit})`);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

const countLines = (text: string): number => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/** The shortest path from a to b over the graph restricted to `within`, as the list of nodes. */
function shortestPath(graph: Map<string, Edge[]>, a: string, b: string, within: Set<string>): string[] | undefined {
  const prev = new Map<string, string>();
  const queue = [a];
  const seen = new Set([a]);
  while (queue.length) {
    const cur = queue.shift()!;
    for (const e of graph.get(cur) ?? []) {
      if (!within.has(e.to)) continue;
      if (e.to === b) {
        const chain = [b, cur];
        for (let p = cur; p !== a; p = prev.get(p)!) chain.push(prev.get(p)!);
        return chain.reverse();
      }
      if (!seen.has(e.to)) { seen.add(e.to); prev.set(e.to, cur); queue.push(e.to); }
    }
  }
  return undefined;
}

/** Writes a chain with each hop marked when it is type-only. */
function chainText(graph: Map<string, Edge[]>, chain: string[]): string {
  let s = chain[0]!;
  for (let i = 1; i < chain.length; i++) {
    const typeOnly = (graph.get(chain[i - 1]!) ?? []).filter((e) => e.to === chain[i]).every((e) => e.typeOnly);
    s += ` ${typeOnly ? '-(type)->' : '->'} ${chain[i]}`;
  }
  return s;
}

/** Strongly connected components (Tarjan), each sorted; only those that are loops. */
function loopsOf(graph: Map<string, Edge[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>(), low = new Map<string, number>(), stack: string[] = [], on = new Set<string>();
  const out: string[][] = [];
  const strong = (v: string): void => {
    idx.set(v, index); low.set(v, index++); stack.push(v); on.add(v);
    for (const { to } of graph.get(v) ?? []) {
      if (!graph.has(to)) continue;
      if (!idx.has(to)) { strong(to); low.set(v, Math.min(low.get(v)!, low.get(to)!)); }
      else if (on.has(to)) low.set(v, Math.min(low.get(v)!, idx.get(to)!));
    }
    if (low.get(v) !== idx.get(v)) return;
    const comp: string[] = [];
    for (let w = ''; w !== v;) { w = stack.pop()!; on.delete(w); comp.push(w); }
    if (comp.length > 1 || (graph.get(v) ?? []).some((e) => e.to === v)) out.push(comp.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!idx.has(v)) strong(v);
  return out;
}

/** For each worker file, the shortest chain out of workers/ to each forbidden module it reaches first. */
function workerLoadsOf(graph: Map<string, Edge[]>): string[] {
  const out: string[] = [];
  const all = new Set(graph.keys());
  for (const w of [...graph.keys()].filter((f) => f.startsWith('workers/')).sort()) {
    // Other worker files are not walked through: each reports its own crossings.
    const prev = new Map<string, string>(), queue = [w], seen = new Set([w]);
    while (queue.length) {
      const cur = queue.shift()!;
      for (const { to } of graph.get(cur) ?? []) {
        if (seen.has(to) || to.startsWith('workers/')) continue;
        seen.add(to); prev.set(to, cur);
        const why = forbiddenForWorkers(to);
        if (why) {
          const chain = [to];
          for (let p = to; p !== w; p = prev.get(p)!) chain.push(prev.get(p)!);
          out.push(`${chainText(graph, chain.reverse())}  (${why})`);
        } else if (all.has(to)) queue.push(to);
      }
    }
  }
  return out.sort();
}

/**
 * Test files that import the code's TypeScript sources rather than the built dist/ the
 * tests run against (one copy of each module in a run, and the pool's worker files exist
 * only as built .js). Plain .mjs scripts, run as they are, may be imported.
 */
export function testSourceImports(root: string): string[] {
  const out: string[] = [];
  for (const file of tsFiles(root, ['test'])) {
    for (const e of importsOf(root, file)) {
      if (!/^(test|dist)\//.test(e.to) && e.to.endsWith('.ts')) out.push(`${file} ${e.typeOnly ? '-(type)->' : '->'} ${e.to}`);
    }
  }
  return out.sort();
}

export function checkStructure(root: string): Violations {
  const v: Violations = { longFiles: [], longFunctions: [], loops: [], workerLoads: [], layers: [] };
  const graph = new Map<string, Edge[]>();
  for (const file of tsFiles(root, GRAPH_DIRS)) {
    const sf = parse(root, file);
    graph.set(file, importsOf(root, file, sf));
    if (!SIZED_DIRS.some((d) => file.startsWith(`${d}/`)) || GENERATED.includes(file)) continue;
    const lines = countLines(sf.text);
    if (lines > MAX_FILE_LINES) v.longFiles.push(`${file}: ${lines} lines (limit ${MAX_FILE_LINES})`);
    v.longFunctions.push(...longFunctionsOf(sf, file));
  }
  for (const comp of loopsOf(graph)) {
    const members = new Set(comp);
    const cycle = shortestPath(graph, comp[0]!, comp[0]!, members)!;
    const rest = comp.length > cycle.length - 1 ? `  (one loop of ${comp.length} files: ${comp.join(', ')})` : '';
    v.loops.push(chainText(graph, cycle) + rest);
  }
  v.workerLoads = workerLoadsOf(graph);
  for (const [file, edges] of graph) {
    if (!SIZED_DIRS.some((d) => file.startsWith(`${d}/`))) continue;
    for (const e of edges) {
      const why = layerBreach(file, e.to);
      if (why) v.layers.push(`${file} ${e.typeOnly ? '-(type)->' : '->'} ${e.to}  (${why})`);
    }
  }
  v.layers.sort();
  return v;
}
