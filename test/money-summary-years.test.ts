// The summary's categories found and missing over a long span of years. SummaryAcc
// (workers/finance/money-summary.ts) keeps each category's years as bits, 32 years a
// word; the fixture's answers never have a category missing a year past the first 32
// of a plan, so these walks are written out here, with the expected lists as literals.

import { describe, expect, it } from 'vitest';
import { SummaryAcc } from '../dist/workers/finance/money-summary.js';

/** Forty plan years, 1980-2019: plan index 33 is 2013, 35 is 2015. */
const YEARS = Array.from({ length: 40 }, (_, i) => 1980 + i);

/** The catalog fields the summary reads: three categories, ranked by name unlike their ids (B, C, A). */
const e = { categories: ['C', 'A', 'B'], categoryRank: Uint16Array.from([2, 0, 1]), nCodes: 4, supersedes: [] } as never;
const plan = { years: YEARS, peerTarget: null, dropNoPopulation: false } as never;
/** A group's cells as present() reads them: no codes. */
const cells = { nCodeLinks: 0, codeVal: new Uint16Array(0) } as never;

/** A walk of one government over YEARS, its rows' categories per plan index given by `has`. */
function walk(has: (cat: number, yi: number) => boolean) {
  const acc = new SummaryAcc(e, plan, [7]);
  YEARS.forEach((year, yi) => {
    const cats = [0, 1, 2].filter((cat) => has(cat, yi));
    if (cats.length === 0) return;
    acc.present(cells, 0, yi, year, 7);
    for (const cat of cats) acc.row(yi, year, 1, cat, 0, 0, 1, 7, 100);
  });
  return acc.finish({ na: { rows: 0, amount: 0 }, notSummed: { rows: 0, amount: 0 }, rowsRead: 0 }, new Set());
}

describe('the summary over more than 32 years', () => {
  it('lists a category missing years on both sides of the 32nd, in rank order, ascending', () => {
    // Category 1 (A) every year; 2 (B) all but 1983 and 2015; 0 (C) only in 2013.
    const s = walk((cat, yi) => (cat === 1 ? true : cat === 2 ? yi !== 3 && yi !== 35 : yi === 33));
    expect(s.categoriesFound).toEqual([1, 2, 0]);
    expect(s.categoriesMissing).toEqual([[2, [1983, 2015]], [0, YEARS.filter((y) => y !== 2013)]]);
  });

  it('counts only the years some row is present in, and a later job does not see an earlier one', () => {
    // Nothing at all in 1990 (index 10) or 2019 (index 39): neither year is missing for anyone.
    walk(() => true);
    const s = walk((cat, yi) => yi !== 10 && yi !== 39 && (cat !== 0 || yi >= 36));
    expect(s.categoriesFound).toEqual([1, 2, 0]);
    expect(s.categoriesMissing).toEqual([[0, YEARS.filter((y, yi) => yi < 36 && y !== 1990)]]);
    expect(s.yearsPresent).toEqual([[7, YEARS.filter((y) => y !== 1990 && y !== 2019)]]);
  });
});
