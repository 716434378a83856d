// Holdings codes the summary-category table files under a balance subtype that
// an answer does not sum. Y08, filed beside Y07 under unemployment_trust, is
// not a holding a reader can add to it, by the corpus's own series breaks
// (SB192, SB193, verified there against the raw Census files):
// - before FY2012 it is a reconciling balance, often large and negative (29 of
//   50 states in FY2011; California's -$8.1 billion beside a Y07 of $2.9
//   billion). Added in, it nets a liability into what the spec defines as
//   gross holdings, and made 27 states' unemployment trust negative;
// - from FY2012 the source publishes it as a copy of Y07 for most states
//   (all 50 in the fixture's FY2019, 43 in FY2020): added in, it counts the
//   same dollars twice.
// SB192 advises using Y07 alone for a trust-fund balance series, so no year
// sums it. The rows left out are counted in
// provenance.balance_caveats.codes_not_summed, and the answer's SQL leaves
// them out the same way.

export interface CodeNotSummed {
  code: string;
  /** The first year it is not summed (0: every year). */
  fromYear: number;
  reason: string;
  /** The corpus's series_breaks ids that document it. */
  breakIds: readonly string[];
}

export const CODES_NOT_SUMMED: readonly CodeNotSummed[] = [
  {
    code: 'Y08',
    fromYear: 0,
    reason: 'Not a holding to add to Y07: before FY2012 a reconciling balance, often negative (it would net a liability into gross holdings); from FY2012 published as a copy of Y07 for most states (it would count the same dollars twice). Y07 alone is the unemployment trust balance, as SB192 advises.',
    breakIds: ['SB192', 'SB193'],
  },
];

/** Per code id: the first year its rows are not summed, 0xffff where never. */
export function notSummedFrom(codeId: ReadonlyMap<string, number>, nCodes: number): Uint16Array {
  const from = new Uint16Array(nCodes).fill(0xffff);
  for (const c of CODES_NOT_SUMMED) {
    const id = codeId.get(c.code);
    if (id !== undefined) from[id] = c.fromYear;
  }
  return from;
}
