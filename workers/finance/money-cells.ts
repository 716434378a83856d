// The scratch cells of the money job: per plan shape, lookups that fold every
// rule of a row's classification into one cell id per code, and the arrays
// one (government, year) group's sums accumulate into.

import { FLOW_ID, type EngineCatalog } from '../../src/finance/engine-catalog.js';
import { ALL_CATEGORIES_ID, RECIPE_SUBTYPE_ID, ROW_AGGREGATE, type MoneyPlan } from '../../src/finance/plan.js';

export const EXP = FLOW_ID.expenditure, REV = FLOW_ID.revenue, BAL = FLOW_ID.balance;

/** What a plan's classification means in lookups (see money-shape.ts). */
export interface Lookups {
  igSub: number;
  wantFlow: Uint8Array;
  inScope: Uint8Array[];
  keepCat: Uint8Array | null;
}

/**
 * Per-plan lookups that fold every rule of a row's classification (flow,
 * concept scope, category filter, basis) into one cell id per code, and the
 * scratch the aggregation accumulates into: no Map and no object per row.
 */
export class Cells {
  readonly nSub: number;
  readonly nCatSlots: number;
  readonly isIG: Uint8Array;
  readonly isBal: Uint8Array;
  readonly naEligible: Uint8Array;
  /** naEligible less the intergovernmental codes (which the scan sends to their leg first): what a row without a harmonized code counts toward. */
  readonly naUnmapped: Uint8Array;
  /** Cell of a code (the effective code on the harmonized basis) in each leg; -1 when the plan excludes it. */
  readonly igCell: Int32Array;
  readonly balCell: Int32Array;
  readonly directCell: Int32Array;
  /** Per cell: its flow, category and subtype (cell ids are in output order, so a plain numeric sort orders rows). */
  readonly cellFlow: Uint8Array;
  readonly cellCat: Int16Array;
  readonly cellSub: Uint8Array;
  private readonly subSlot: Int32Array;
  private readonly catSlot: Int32Array;
  readonly amt: Float64Array;
  readonly flags: Uint8Array;
  readonly stamp: Int32Array;
  readonly codeHead: Int32Array;
  /** Per cell, how many codes its list (codeHead, codeNext) holds: a row is sized without walking the list. */
  readonly codeCount: Int32Array;
  readonly codeSeen: Int32Array;
  codeNext = new Int32Array(1024);
  codeVal = new Uint16Array(1024);
  nCodeLinks = 0;
  touched = new Int32Array(256);
  nTouched = 0;
  cur = 0;

  constructor(e: EngineCatalog, plan: MoneyPlan, { igSub, wantFlow, inScope, keepCat }: Lookups) {
    const nCodes = e.nCodes;
    this.nSub = e.subtypes.length + 1;
    this.nCatSlots = e.categories.length + 2;
    const nCells = 4 * this.nCatSlots * this.nSub;
    this.amt = new Float64Array(nCells); this.flags = new Uint8Array(nCells); this.stamp = new Int32Array(nCells).fill(-1);
    this.codeHead = new Int32Array(nCells); this.codeCount = new Int32Array(nCells); this.codeSeen = new Int32Array(nCodes).fill(-1);
    // Slots follow the output order: recipe subtype first, then subtypes by name; negative categories first, then by name.
    this.subSlot = new Int32Array(this.nSub);
    e.subtypes.forEach((_, sub) => { this.subSlot[sub] = e.subtypeRank[sub]! + 1; });
    this.subSlot[this.nSub - 1] = 0;
    this.catSlot = new Int32Array(this.nCatSlots);
    this.catSlot[0] = 0; this.catSlot[1] = 1;
    e.categories.forEach((_, cat) => { this.catSlot[cat + 2] = e.categoryRank[cat]! + 2; });
    this.cellFlow = new Uint8Array(nCells); this.cellCat = new Int16Array(nCells); this.cellSub = new Uint8Array(nCells);
    for (let flow = 0; flow < 4; flow++) {
      for (let sub = 0; sub < this.nSub; sub++) {
        for (let c = 0; c < this.nCatSlots; c++) {
          const realSub = sub === this.nSub - 1 ? RECIPE_SUBTYPE_ID : sub;
          const cell = this.encode(flow, c - 2, realSub);
          this.cellFlow[cell] = flow; this.cellCat[cell] = c - 2; this.cellSub[cell] = realSub;
        }
      }
    }
    this.isIG = new Uint8Array(nCodes); this.isBal = new Uint8Array(nCodes); this.naEligible = new Uint8Array(nCodes); this.naUnmapped = new Uint8Array(nCodes);
    this.igCell = new Int32Array(nCodes).fill(-1); this.balCell = new Int32Array(nCodes).fill(-1); this.directCell = new Int32Array(nCodes).fill(-1);
    const catOk = (cat: number): boolean => keepCat === null || (cat >= 0 && keepCat[cat] === 1);
    const catOf = (cat: number): number => (plan.allCategories ? ALL_CATEGORIES_ID : cat);
    for (let code = 0; code < nCodes; code++) {
      const flow = e.codeFlow[code]!, sub = e.codeSub[code]!, cat = e.codeCat[code]!;
      if (flow === EXP && sub === igSub) this.isIG[code] = 1;
      if (flow === BAL) this.isBal[code] = 1;
      // A row harmonization leaves without a code counts only where it would have counted: in the flows, subtypes and
      // categories asked for (an audit of 2026-11-28 found category=Police answers reporting every category's).
      if (flow !== 0 && wantFlow[flow] && sub >= 0 && inScope[flow]![sub] && flow !== BAL && catOk(cat)) this.naEligible[code] = 1;
      this.naUnmapped[code] = this.naEligible[code]! & (this.isIG[code]! ^ 1);
      // The IG leg, by the effective code: expenditure, in the concept's scope (which holds intergovernmental under total).
      if (plan.igLeg && wantFlow[EXP] && flow === EXP && sub >= 0 && inScope[EXP]![sub] && catOk(cat)) this.igCell[code] = this.encode(EXP, catOf(cat), sub);
      if (flow === BAL && wantFlow[BAL] && inScope[BAL]![sub] && catOk(cat)) this.balCell[code] = this.encode(BAL, catOf(cat), sub);
      if ((flow === EXP || flow === REV) && wantFlow[flow] && sub >= 0 && inScope[flow]![sub] && !(flow === EXP && sub === igSub) && catOk(cat)) {
        this.directCell[code] = this.encode(flow, catOf(cat), sub);
      }
    }
  }

  encode(flow: number, cat: number, sub: number): number {
    const subSlot = this.subSlot[sub === RECIPE_SUBTYPE_ID ? this.nSub - 1 : sub]!;
    return (flow * this.nSub + subSlot) * this.nCatSlots + this.catSlot[cat + 2]!;
  }

  decode(cell: number): { flow: number; cat: number; sub: number } {
    return { flow: this.cellFlow[cell]!, cat: this.cellCat[cell]!, sub: this.cellSub[cell]! };
  }

  begin(): void {
    this.cur++;
    this.nTouched = 0;
    this.nCodeLinks = 0;
  }

  add(cell: number, code: number, amt: number, aggregate: boolean): void {
    if (this.stamp[cell] !== this.cur) {
      this.stamp[cell] = this.cur;
      this.amt[cell] = 0; this.flags[cell] = 0; this.codeHead[cell] = -1; this.codeCount[cell] = 0;
      if (this.nTouched === this.touched.length) { const t = new Int32Array(this.touched.length * 2); t.set(this.touched); this.touched = t; }
      this.touched[this.nTouched++] = cell;
    }
    this.amt[cell]! += amt;
    if (aggregate) this.flags[cell] = ROW_AGGREGATE;
    // A code lands in one cell per group, so one stamp per code dedupes its listing.
    if (this.codeSeen[code] !== this.cur) {
      this.codeSeen[code] = this.cur;
      if (this.nCodeLinks === this.codeNext.length) {
        const n = new Int32Array(this.codeNext.length * 2); n.set(this.codeNext); this.codeNext = n;
        const v = new Uint16Array(this.codeVal.length * 2); v.set(this.codeVal); this.codeVal = v;
      }
      const k = this.nCodeLinks++;
      this.codeVal[k] = code; this.codeNext[k] = this.codeHead[cell]!; this.codeHead[cell] = k; this.codeCount[cell]!++;
    }
  }

  /**
   * Sorts the touched cells into output order (flow, subtype, category), in
   * place: touched[0..n) then lists them. A group touches a handful, which an
   * insertion sort orders for less than a TypedArray#sort call and its
   * subarray cost; a cell of every category can touch hundreds.
   */
  sort(): number {
    const n = this.nTouched, t = this.touched;
    if (n > 16) { t.subarray(0, n).sort(); return n; }
    for (let i = 1; i < n; i++) {
      const v = t[i]!;
      let j = i;
      for (; j > 0 && t[j - 1]! > v; j--) t[j] = t[j - 1]!;
      t[j] = v;
    }
    return n;
  }

  /** Whether the group has a cell outside the intergovernmental subtype (a Direct or revenue row). */
  hasDirect(igSub: number): boolean {
    for (let k = 0; k < this.nTouched; k++) if (this.cellSub[this.touched[k]!] !== igSub) return true;
    return false;
  }

  codesOf(cell: number): number[] {
    const out: number[] = [];
    for (let k = this.codeHead[cell]!; k >= 0; k = this.codeNext[k]!) out.push(this.codeVal[k]!);
    return out;
  }
}
