// A plan's shape: the lookups and scratch cells of how it classifies rows,
// cached per worker, since building them is most of a small job's cost.

import { unmappedKey } from '../../src/finance/columns.js';
import type { EngineCatalog } from '../../src/finance/engine-catalog.js';
import type { MoneyPlan } from '../../src/finance/plan.js';
import { BAL, Cells, type Lookups } from './money-cells.js';

/** What a plan's classification means in lookups: the same for every plan of one shape (shapeOf). */
export interface Shape extends Lookups {
  /** In-group category keys to visit, ascending (EngineCatalog.codeKey); null: scan whole groups. */
  keys: number[] | null;
  cells: Cells;
}

/**
 * A plan's lookups and scratch cells depend only on how it classifies rows; a
 * worker keeps the last few shapes (jobs run one at a time, so scratch is
 * never shared). Building them is most of a small job's cost.
 */
const shapes = new Map<string, Shape>();
let last: { plan: MoneyPlan; e: EngineCatalog; shape: Shape } | null = null;
export function shapeOf(e: EngineCatalog, p: MoneyPlan): Shape {
  // Traffic repeats shapes: comparing with the last plan's fields costs less than building the key.
  if (last !== null && last.e === e && sameShape(last.plan, p)) return last.shape;
  const shape = keyedShape(e, p);
  last = { plan: p, e, shape };
  return shape;
}

const sameList = (a: readonly number[] | null | undefined, b: readonly number[] | null | undefined): boolean => {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
};
const sameShape = (a: MoneyPlan, b: MoneyPlan): boolean =>
  a.allCategories === b.allCategories && a.harmonized === b.harmonized && a.igLeg === b.igLeg && a.recipe === b.recipe &&
  sameList(a.flows, b.flows) && sameList(a.categories, b.categories) &&
  sameList(a.scope[0], b.scope[0]) && sameList(a.scope[1], b.scope[1]) && sameList(a.scope[2], b.scope[2]) && sameList(a.scope[3], b.scope[3]);

function keyedShape(e: EngineCatalog, p: MoneyPlan): Shape {
  // Every field sameShape compares, and only those (inScope reads the scope of flow ids 0-3).
  const key = `${p.flows}|${p.scope[0]}|${p.scope[1]}|${p.scope[2]}|${p.scope[3]}|${p.categories}|${p.allCategories}|${p.harmonized}|${p.igLeg}|${p.recipe}|${e.nCodes}`;
  let shape = shapes.get(key);
  if (shape) return shape;
  const wantFlow = new Uint8Array(4);
  for (const f of p.flows) wantFlow[f] = 1;
  const keepCat = p.categories === null ? null : new Uint8Array(e.categories.length);
  if (keepCat) for (const id of p.categories!) keepCat[id] = 1;
  const inScope = [0, 1, 2, 3].map((f) => {
    const a = new Uint8Array(e.subtypes.length + 1);
    for (const s of p.scope[f] ?? []) a[s] = 1;
    return a;
  });
  const igSub = e.subtypes.indexOf('intergovernmental');
  // Harmonized Direct/revenue legs for named categories read only those categories' rows (see aggregate).
  const keys = p.recipe === null && p.harmonized && p.categories !== null && !p.igLeg && !wantFlow[BAL]
    ? [...new Set(p.categories), unmappedKey(e.categories.length)].sort((a, b) => a - b)
    : null;
  const lookups = { igSub, wantFlow, inScope, keepCat, keys };
  shape = { ...lookups, cells: new Cells(e, p, lookups) };
  if (shapes.size >= 64) shapes.delete(shapes.keys().next().value!);
  shapes.set(key, shape);
  return shape;
}
