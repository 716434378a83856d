// The money job: spending, revenue, balances and profile rows for a set of
// governments and years, from the shared corpus. For each government it
// walks only that government's (year) groups; the classification of every
// row is a lookup in the engine catalog by code id.
//
// Semantics follow the corpus's reader (civilytics/uscogdata): Direct and
// revenue legs skip aggregate rows and, on the harmonized basis, classify by
// harmonized_code; the intergovernmental leg keeps aggregate rows (wide-era
// IG families exist only as aggregates, year-disjoint from their leaves);
// balances are always read raw; recipes sum their component codes with no
// aggregate filter inside each component's year window and type scope.

import { FLAG_AGGREGATE, NO_CODE } from '../../src/finance/columns.js';
import { FLOW_ID, SCOPE_LOCAL, SCOPE_STATE, type EngineCatalog } from '../../src/finance/engine-catalog.js';
import {
  ALL_CATEGORIES_ID, RECIPE_CATEGORY_ID, RECIPE_SUBTYPE_ID, ROW_AGGREGATE, ROW_DIRECT_SUPPRESSED,
  VS_CENSUS_ZERO, VS_NONE, VS_NOT_REPORTED, VS_REPORTED,
  type MoneyPlan, type MoneyResult, type MoneyRows, type PeerCell,
} from '../../src/finance/plan.js';
import type { FinanceView } from './corpus.js';

interface Acc {
  year: number;
  gov: number;
  flow: number;
  cat: number;
  sub: number;
  amt: number;
  codes: number[];
  flags: number;
  vs: number;
  group: number;
}

const EXP = FLOW_ID.expenditure, REV = FLOW_ID.revenue, BAL = FLOW_ID.balance;

export function money(c: FinanceView, e: EngineCatalog, plan: MoneyPlan): MoneyResult {
  const igSub = e.subtypes.indexOf('intergovernmental');
  const wantYear = new Set(plan.years);
  const wantFlow = new Uint8Array(4);
  for (const f of plan.flows) wantFlow[f] = 1;
  const inScope = [0, 1, 2, 3].map((f) => {
    const a = new Uint8Array(e.subtypes.length + 1);
    for (const s of plan.scope[f] ?? []) a[s] = 1;
    return a;
  });
  const keepCat = plan.categories === null ? null : new Uint8Array(e.categories.length);
  if (keepCat) for (const id of plan.categories!) keepCat[id] = 1;
  const catOk = (cat: number): boolean => keepCat === null || (cat >= 0 && keepCat[cat] === 1);
  const recipe = plan.recipe === null ? null : e.recipes[plan.recipe]!;

  const all: Acc[] = [];
  let naRows = 0, naAmount = 0;
  const suggestHits = new Map<number, Set<number>>();
  const suppressedRecipes: Record<string, number[]> = {};
  let rowsFilled = 0;
  const govsWithoutRows: number[] = [];
  const yearsPresent: Record<number, number[]> = {};

  for (const gov of plan.govs) {
    const type = e.govType[gov]!;
    const gs = c.govGroupStart[gov]!, ge = c.govGroupStart[gov + 1]!;
    const groupOfYear = new Map<number, number>();
    const govRows: Acc[] = [];
    for (let k = gs; k < ge; k++) {
      const g = c.govGroups[k]!;
      const year = c.gYear[g]!;
      if (!wantYear.has(year)) continue;
      groupOfYear.set(year, g);
      const local = new Map<number, Acc>();
      const add = (flow: number, cat: number, sub: number, code: number, amt: number, aggregate: boolean): void => {
        const key = (flow * 4096 + (cat + 2)) * 256 + sub;
        let a = local.get(key);
        if (a === undefined) {
          a = { year, gov, flow, cat, sub, amt: 0, codes: [], flags: 0, vs: plan.complete ? VS_REPORTED : VS_NONE, group: g };
          local.set(key, a);
        }
        a.amt += amt;
        if (!a.codes.includes(code)) a.codes.push(code);
        if (aggregate) a.flags |= ROW_AGGREGATE;
      };
      for (let r = c.gStart[g]!, re = c.gStart[g + 1]!; r < re; r++) {
        const code = c.code[r]!;
        const aggregate = (c.flags[r]! & FLAG_AGGREGATE) !== 0;
        const amt = c.amt[r]!;
        if (recipe !== null) {
          for (let j = 0; j < recipe.code.length; j++) {
            if (recipe.code[j] !== code || year < recipe.yearMin[j]! || year > recipe.yearMax[j]! || !scopeOk(recipe.scope[j]!, type)) continue;
            add(0, RECIPE_CATEGORY_ID, RECIPE_SUBTYPE_ID, code, amt * recipe.weight[j]!, false);
          }
          continue;
        }
        const flow = e.codeFlow[code]!, sub = e.codeSub[code]!;
        if (flow === EXP && sub === igSub) {
          // The intergovernmental leg: membership by the published code, aggregates kept.
          if (!plan.igLeg || !wantFlow[EXP]) continue;
          const h = c.hcode[r]!;
          const eff = plan.harmonized && h !== NO_CODE ? h : code;
          const esub = e.codeSub[eff]!;
          if (e.codeFlow[eff] !== EXP || esub < 0 || !inScope[EXP]![esub]) continue;
          const cat = e.codeCat[eff]!;
          if (catOk(cat)) add(EXP, plan.allCategories ? ALL_CATEGORIES_ID : cat, esub, eff, amt, aggregate);
          continue;
        }
        if (aggregate) continue;
        if (flow === BAL) {
          // Holdings are read raw on either basis: the harmonization map has no balance codes.
          if (wantFlow[BAL] && inScope[BAL]![sub] && catOk(e.codeCat[code]!)) add(BAL, plan.allCategories ? ALL_CATEGORIES_ID : e.codeCat[code]!, sub, code, amt, false);
          continue;
        }
        let eff = code;
        if (plan.harmonized) {
          const h = c.hcode[r]!;
          if (h === NO_CODE) {
            if (flow !== 0 && wantFlow[flow] && inScope[flow]![sub]) { naRows++; naAmount += amt; }
            continue;
          }
          eff = h;
        }
        const eflow = e.codeFlow[eff]!, esub = e.codeSub[eff]!;
        if ((eflow !== EXP && eflow !== REV) || !wantFlow[eflow] || !inScope[eflow]![esub] || (eflow === EXP && esub === igSub)) continue;
        const cat = e.codeCat[eff]!;
        if (catOk(cat)) add(eflow, plan.allCategories ? ALL_CATEGORIES_ID : cat, esub, eff, amt, false);
      }
      for (const a of local.values()) govRows.push(a);
    }

    // The IG leg without a Direct counterpart, where a recipe would recover the Direct dollars.
    if (plan.igLeg && !plan.allCategories) {
      const direct = new Set(govRows.filter((a) => a.sub !== igSub).map((a) => a.year * 4096 + a.cat));
      for (const a of govRows) {
        if (a.sub !== igSub || direct.has(a.year * 4096 + a.cat)) continue;
        const covering = (e.categoryRecipes[a.cat] ?? []).filter((ri) => covers(c, e, ri, a.group, a.year, type));
        if (covering.length === 0) continue;
        a.flags |= ROW_DIRECT_SUPPRESSED;
        suppressedRecipes[`${a.year}:${a.cat}`] = covering;
      }
    }

    const years = [...new Set(govRows.map((a) => a.year))].sort((x, y) => x - y);
    yearsPresent[gov] = years;
    if (govRows.length === 0) govsWithoutRows.push(gov);

    if (plan.suggest && plan.categories !== null) {
      const candidates = [...new Set(plan.categories.flatMap((cat) => e.categoryRecipes[cat] ?? []))];
      const directYears = new Set(govRows.filter((a) => a.sub !== igSub).map((a) => a.year));
      for (const year of plan.years) {
        if (directYears.has(year)) continue;
        const g = groupOfYear.get(year);
        if (g === undefined) continue;
        for (const ri of candidates) {
          if (!covers(c, e, ri, g, year, type)) continue;
          let s = suggestHits.get(ri);
          if (!s) suggestHits.set(ri, (s = new Set()));
          s.add(year);
        }
      }
    }

    if (plan.complete) rowsFilled += fill(e, plan, gov, type, govRows, groupOfYear, catOk, inScope);
    for (const a of govRows) all.push(a);
  }

  let rows = all;
  const inconsistentGovs: number[] = [], noPopulationGovs: number[] = [];
  if (plan.consistent && plan.years.length > 1) {
    const drop = new Set(plan.govs.filter((g) => !plan.keepGovs.includes(g) && (yearsPresent[g] ?? []).length < plan.years.length && (yearsPresent[g] ?? []).length > 0));
    inconsistentGovs.push(...drop);
    rows = rows.filter((a) => !drop.has(a.gov));
  }
  if (plan.dropNoPopulation) {
    const drop = new Set(rows.filter((a) => a.group < 0 || c.gPop[a.group]! <= 0).map((a) => a.gov));
    noPopulationGovs.push(...drop);
    rows = rows.filter((a) => !(a.group < 0 || c.gPop[a.group]! <= 0));
  }
  const reportingByYear: [number, number][] = plan.years.map((y) => [y, new Set(rows.filter((a) => a.year === y && a.gov !== plan.peerTarget).map((a) => a.gov)).size]);
  const peerCells = plan.peerTarget === null ? [] : peerSummary(c, rows, plan.peerTarget);

  rows.sort((a, b) =>
    a.year - b.year || e.govRank[a.gov]! - e.govRank[b.gov]! || a.flow - b.flow ||
    subRank(e, a.sub) - subRank(e, b.sub) || catRank(e, a.cat) - catRank(e, b.cat));

  const reported = rows.filter((a) => a.vs !== VS_CENSUS_ZERO && a.vs !== VS_NOT_REPORTED);
  const catsFound = [...new Set(reported.map((a) => a.cat))].filter((x) => x >= 0).sort((x, y) => catRank(e, x) - catRank(e, y));
  const presentYears = [...new Set(reported.map((a) => a.year))].sort((x, y) => x - y);
  const categoriesMissing: [number, number[]][] = [];
  for (const cat of catsFound) {
    const has = new Set(reported.filter((a) => a.cat === cat).map((a) => a.year));
    const missing = presentYears.filter((y) => !has.has(y));
    if (missing.length) categoriesMissing.push([cat, missing]);
  }
  const codesObserved = [...new Set(rows.flatMap((a) => a.codes))].sort((x, y) => x - y);
  const aggregateYears = [...new Set(rows.filter((a) => a.flags & ROW_AGGREGATE).map((a) => a.year))].sort((x, y) => x - y);
  const balanceSubtypes = [...new Set(reported.filter((a) => a.flow === BAL).map((a) => a.sub))];

  const filtered = plan.subtype === null ? rows : rows.filter((a) => a.sub === plan.subtype);
  const popYears = new Set<number>();
  const popCounts = { census_f33: 0, unavailable: 0 };
  for (const a of filtered) {
    const pop = a.group >= 0 ? c.gPop[a.group]! : -1;
    if (pop > 0) { popCounts.census_f33++; popYears.add(c.gPopYear[a.group]!); } else popCounts.unavailable++;
  }

  const page = filtered.slice(plan.offset, plan.offset + plan.limit);
  return {
    total: filtered.length,
    rows: encode(c, page),
    summary: {
      yearsPresent, categoriesFound: catsFound, categoriesMissing, codesObserved, aggregateYears, naRows, naAmount,
      suggestions: supersede(e, suggestHits), directSuppressed: Object.keys(suppressedRecipes).length > 0, suppressedRecipes,
      rowsFilled, popYears: [...popYears].sort((x, y) => x - y), popCounts, balanceSubtypes, govsWithoutRows,
      inconsistentGovs, noPopulationGovs, reportingByYear, peerCells,
    },
  };
}

/** Type-7 quantile (linear interpolation between order statistics) of sorted values. */
export function quantile(sorted: number[], p: number): number {
  const h = (sorted.length - 1) * p, lo = Math.floor(h);
  return lo + 1 < sorted.length ? sorted[lo]! + (h - lo) * (sorted[lo + 1]! - sorted[lo]!) : sorted[lo]!;
}

/** Per (year, subtype, category) cell: peer percentiles of per-capita dollars, and the target's rank. */
function peerSummary(c: FinanceView, rows: Acc[], target: number): PeerCell[] {
  const cells = new Map<string, { year: number; sub: number; cat: number; values: number[]; target: number | null }>();
  for (const a of rows) {
    const pop = a.group >= 0 ? c.gPop[a.group]! : -1;
    if (pop <= 0 || Number.isNaN(a.amt)) continue;
    const key = `${a.year}:${a.sub}:${a.cat}`;
    let cell = cells.get(key);
    if (!cell) cells.set(key, (cell = { year: a.year, sub: a.sub, cat: a.cat, values: [], target: null }));
    const v = (a.amt * 1000) / pop;
    if (a.gov === target) cell.target = v; else cell.values.push(v);
  }
  const out: PeerCell[] = [];
  for (const cell of cells.values()) {
    const v = cell.values.sort((x, y) => x - y);
    const t = cell.target;
    out.push({
      year: cell.year, sub: cell.sub, cat: cell.cat, n: v.length,
      p25: v.length ? quantile(v, 0.25) : Number.NaN, p50: v.length ? quantile(v, 0.5) : Number.NaN, p75: v.length ? quantile(v, 0.75) : Number.NaN,
      targetRank: t === null ? 0 : 1 + v.filter((x) => x > t).length,
    });
  }
  return out.sort((a, b) => a.year - b.year || a.sub - b.sub || a.cat - b.cat);
}

const scopeOk = (scope: number, type: number): boolean => (scope === SCOPE_STATE ? type === 0 : scope === SCOPE_LOCAL ? type >= 1 && type <= 3 : true);
const subRank = (e: EngineCatalog, sub: number): number => (sub === RECIPE_SUBTYPE_ID ? -1 : e.subtypeRank[sub]!);
const catRank = (e: EngineCatalog, cat: number): number => (cat < 0 ? cat : e.categoryRank[cat]!);

/** Whether a recipe's generic join yields a row for this government-year group. */
function covers(c: FinanceView, e: EngineCatalog, ri: number, g: number, year: number, type: number): boolean {
  const r = e.recipes[ri]!;
  for (let row = c.gStart[g]!, end = c.gStart[g + 1]!; row < end; row++) {
    const code = c.code[row]!;
    for (let j = 0; j < r.code.length; j++) {
      if (r.code[j] === code && year >= r.yearMin[j]! && year <= r.yearMax[j]! && scopeOk(r.scope[j]!, type)) return true;
    }
  }
  return false;
}

/** Drops a suggested recipe when one that supersedes it covers at least the same years. */
function supersede(e: EngineCatalog, hits: Map<number, Set<number>>): [number, number[]][] {
  const out: [number, number[]][] = [];
  for (const [ri, years] of hits) {
    const coveredBy = [...hits].some(([other, oy]) => other !== ri && e.supersedes[other]!.includes(ri) && [...years].every((y) => oy.has(y)));
    if (!coveredBy) out.push([ri, [...years].sort((a, b) => a - b)]);
  }
  return out.sort((a, b) => a[0] - b[0]);
}

/**
 * complete=true: every (category, subtype) cell the corpus's code set defines
 * for this government's type and year appears. An absent cell is a published
 * $0 in a dense-source year; in a sparse-source year, or in any year the
 * government did not report at all, it is unknown (NaN, never 0).
 */
function fill(
  e: EngineCatalog, plan: MoneyPlan, gov: number, type: number, rows: Acc[], groupOfYear: Map<number, number>,
  catOk: (cat: number) => boolean, inScope: Uint8Array[],
): number {
  let filled = 0;
  for (const year of plan.years) {
    const cells = e.grid[year]?.[type];
    if (!cells) continue;
    const g = groupOfYear.get(year);
    const have = new Set(rows.filter((a) => a.year === year).map((a) => (a.cat << 8) | a.sub));
    const vs = g !== undefined && e.censusZeroYears.includes(year) ? VS_CENSUS_ZERO : VS_NOT_REPORTED;
    for (const cell of cells) {
      const cat = cell >> 8, sub = cell & 0xff, flow = e.categoryFlow[cat]!;
      if (!plan.flows.includes(flow) || !inScope[flow]![sub] || !catOk(cat) || have.has(cell)) continue;
      rows.push({ year, gov, flow, cat, sub, amt: vs === VS_CENSUS_ZERO ? 0 : Number.NaN, codes: [], flags: 0, vs, group: g ?? -1 });
      filled++;
    }
  }
  return filled;
}

function encode(c: FinanceView, page: Acc[]): MoneyRows {
  const n = page.length;
  const out: MoneyRows = {
    n,
    year: new Uint16Array(n), gov: new Uint32Array(n), flow: new Uint8Array(n), cat: new Int16Array(n), sub: new Uint8Array(n),
    amt: new Float64Array(n), flags: new Uint8Array(n), valueSource: new Uint8Array(n), pop: new Int32Array(n),
    codesStart: new Uint32Array(n + 1), codes: new Uint16Array(page.reduce((s, a) => s + a.codes.length, 0)),
  };
  let k = 0;
  page.forEach((a, i) => {
    out.year[i] = a.year; out.gov[i] = a.gov; out.flow[i] = a.flow; out.cat[i] = a.cat; out.sub[i] = a.sub;
    out.amt[i] = a.amt; out.flags[i] = a.flags; out.valueSource[i] = a.vs;
    out.pop[i] = a.group >= 0 ? c.gPop[a.group]! : -1;
    out.codesStart[i] = k;
    for (const code of a.codes.sort((x, y) => x - y)) out.codes[k++] = code;
  });
  out.codesStart[n] = k;
  return out;
}
