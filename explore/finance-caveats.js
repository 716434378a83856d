// Where a series changes meaning without a change in the world: the item codes
// a category's rows sum (the API's codes_included) differ from one published
// year to the next within a subtype reported in both (Cook County's Health &
// Hospitals operations is E32 in FY2011 and E32 + E36 from FY2019, a hospital
// system brought in), or the answer names a catalogued series break
// (provenance.series_break_refs). A subtype that appears or disappears (a
// year with capital outlay and one without) is drawn as it is and is no
// caveat. The chart marks the year; the note says which codes came and went.

const subtypeOf = (r) => r.spend_subtype ?? r.revenue_subtype ?? r.subtype ?? '';

/** Subtype → year → the set of codes summed into its rows with an amount. */
export function codesByYear(rows, field) {
  const out = new Map();
  for (const r of rows) {
    if (r[field] === null || r[field] === undefined) continue;
    const by = out.get(subtypeOf(r)) ?? out.set(subtypeOf(r), new Map()).get(subtypeOf(r));
    const s = by.get(r.year) ?? by.set(r.year, new Set()).get(r.year);
    for (const c of String(r.codes_included ?? '').split(',')) if (c) s.add(c);
  }
  return out;
}

/** Each (subtype, published year) whose codes differ from its previous year with rows: { year, from, subtype, came, went, before, after }, by year. */
export function codeChanges(rows, field) {
  const out = [];
  for (const [subtype, by] of codesByYear(rows, field)) {
    const years = [...by.keys()].sort((a, b) => a - b);
    for (let i = 1; i < years.length; i++) {
      const a = by.get(years[i - 1]), b = by.get(years[i]);
      const came = [...b].filter((c) => !a.has(c)).sort(), went = [...a].filter((c) => !b.has(c)).sort();
      if (came.length || went.length) out.push({ year: years[i], from: years[i - 1], subtype, came, went, before: [...a].sort(), after: [...b].sort() });
    }
  }
  return out.sort((p, q) => p.year - q.year || (p.subtype < q.subtype ? -1 : 1));
}

/** The years a list of changes marks, each once: [{ year }]. */
export const changeYears = (changes) => [...new Set(changes.map((c) => c.year))].map((year) => ({ year }));

/** One change in words: "FY2019 operations: E36 came in (FY2011 summed E32; FY2019 E32, E36)". */
export function changeText(c) {
  const parts = [];
  if (c.came.length) parts.push(`${c.came.join(', ')} came in`);
  if (c.went.length) parts.push(`${c.went.join(', ')} went out`);
  return `FY${c.year} ${c.subtype}: ${parts.join(' and ')} (FY${c.from} summed ${c.before.join(', ') || 'none of them'}; FY${c.year} ${c.after.join(', ') || 'none of them'})`;
}

/** The caveat sentence for a series, or '' when its codes hold and no break is catalogued. */
export function caveatText(name, changes, breakRefs = []) {
  const out = [];
  if (changes.length) out.push(`${name}: the codes summed change, so the series changes meaning there, not only where the money did: ${changes.map(changeText).join('; ')}.`);
  if (breakRefs.length) out.push(`Catalogued series breaks touch its codes: ${breakRefs.join(', ')}.`);
  return out.join(' ');
}

// The spec's catalogued seam: the employee-retirement codes inside insurance trust revenue stop after
// FY2016 (a change of collection scope), so a total-revenue series steps down across it.
export const RETIREMENT_CODES = ['X01', 'X02', 'X05', 'X08'];

/** The years at which some of `codes` summed into the rows go (or come), as one series named `name`. */
function codeSeam(rows, field, codes, name) {
  const only = rows.filter((r) => r[field] !== null && r[field] !== undefined).map((r) => ({
    ...r, subtype: name, spend_subtype: undefined, revenue_subtype: undefined,
    codes_included: String(r.codes_included ?? '').split(',').filter((c) => codes.includes(c)).join(','),
  }));
  return codeChanges(only, field);
}

/** The years at which the retirement codes summed into revenue rows go (or come), as codeChanges gives them. */
export const retirementSeam = (rows, field) => codeSeam(rows, field, RETIREMENT_CODES, 'insurance trust (employee retirement)');

// The spec's intergovernmental revenue rule: through FY2011 the corpus flags the aid residual codes as aggregates,
// which category rows leave out, and counties, cities and townships report most of their federal, state and
// local aid only there; from FY2012 they are summed. A revenue series steps up across the seam for that alone.
export const AID_RESIDUAL_CODES = ['B89', 'C89', 'D89'];

/** The years at which the aid residual codes summed into revenue rows come (or go). */
export const aidSeam = (rows, field) => codeSeam(rows, field, AID_RESIDUAL_CODES, 'aid (B89, C89, D89)');

/** The aid seam's note: '' when the rows show none. */
export function aidSeamText(seam) {
  if (!seam.length) return '';
  return `${seam.map(changeText).join('; ')}. Through FY2011 the corpus flags these aid codes (federal, state and local aid not elsewhere classified) as aggregates, which category rows leave out, and local governments reported much of their aid only there: the earlier years' revenue lacks it, so part of the step is the coding, not the money. The ig_federal_total_wide, ig_state_total_wide and ig_local_total_wide recipes carry aid across the change: Compare \u2192 aid from other governments draws them.`;
}

/** Categories with rows (an amount) in some published year of the answer but none in `year`, by name. */
export function absentCategories(rows, field, year) {
  // A year the government has no row in at all is its absence from that year's survey, not a category's gap.
  if (!rows.some((r) => r.year === year && r[field] !== null && r[field] !== undefined)) return [];
  const seen = new Map();
  for (const r of rows) {
    if (r[field] === null || r[field] === undefined) continue;
    (seen.get(r.category) ?? seen.set(r.category, new Set()).get(r.category)).add(r.year);
  }
  return [...seen].filter(([, ys]) => !ys.has(year)).map(([c, ys]) => ({ category: c, years: [...ys].sort((a, b) => a - b) })).sort((a, b) => (a.category < b.category ? -1 : 1));
}

/** The note for categories a year lacks: a missing bar is not a zero. */
export function absentText(absent, year) {
  if (!absent.length) return '';
  const named = absent.slice(0, 8).map((a) => `${a.category} (rows in FY${a.years.join(', FY')})`).join('; ');
  const more = absent.length > 8 ? `; and ${absent.length - 8} more` : '';
  return `No FY${year} rows for ${named}${more}: not a zero. Through FY2011 the source published some functions only in codes that combine them with another (aggregate codes, which category rows leave out; Corrections is one), and a government may not have reported a category in a year. A category's history names the recipe that recovers it where there is one.`;
}
