// A government's history: spending and revenue per fiscal year, and the same
// line chart for one category (finance-breakdown.js). The mirror has no rows
// for FY2012-2018: those years are drawn as gaps (null points break Plot's
// line), never as a line across them, and each year with data gets a dot.
/* global Plot */
import { callLinks, el, getAll, money, moneyLong, widthOf } from '/explore/format.js';
import { absentCategories, absentText, aidSeam, aidSeamText, caveatText, changeYears, retirementSeam } from '/explore/finance-caveats.js';

const COLORS = { spending: '#d1495b', revenue: '#2e86ab' };

/** The amount field a row carries for the chosen dollars and scale. */
export function amountField(view) {
  const real = view.adjust === 'real';
  if (view.scale === 'per_capita') return real ? 'amt_per_capita_real' : 'amt_per_capita_nominal';
  return real ? 'amt_real' : 'amt_nominal';
}

/** The unit a reader needs beside a number: nominal or real (with its base year), total or per resident. */
export function unitLabel(view, baseYear, perCapita = view.scale === 'per_capita') {
  const dollars = view.adjust === 'real' ? (baseYear ? `real ${baseYear} dollars` : 'real dollars') : 'nominal dollars';
  return `${dollars}${perCapita ? ', per resident' : ', total'}`;
}

/** Year → sum over the rows' subtypes; a year with no row (or only null amounts) is absent, not zero. */
export function sumByYear(rows, field) {
  const out = new Map();
  for (const r of rows) {
    const v = r[field];
    if (v === null || v === undefined) continue;
    out.set(r.year, (out.get(r.year) ?? 0) + v);
  }
  return out;
}

/** One point per series per year of the span, null where the series has no value: the line breaks there. */
export function withGaps(series, years) {
  const lo = Math.min(...years), hi = Math.max(...years);
  const out = [];
  for (const s of series) for (let y = lo; y <= hi; y++) out.push({ series: s.name, year: y, value: s.values.get(y) ?? null });
  return out;
}

/**
 * Year ticks that fit the width: every year when there is room, else every k-th year from the first,
 * the last year always kept (replacing the tick before it when the two would crowd). At 390 px the
 * first year (FY2011, the first published) keeps its label.
 */
export function yearTicks(lo, hi, width) {
  const room = Math.max(2, Math.floor((width - 84) / 44));
  const step = Math.max(1, Math.ceil((hi - lo) / (room - 1)));
  const ticks = [];
  for (let y = lo; y <= hi; y += step) ticks.push(y);
  if (ticks.at(-1) !== hi) { if (hi - ticks.at(-1) < step) ticks.pop(); ticks.push(hi); }
  return ticks;
}

/** A legend of every mark a chart draws: each series' swatch, and the caveat rule when there is one. */
function legendOf(series, caveats) {
  const box = el('div', { class: 'chart-legend' }, Plot.legend({ color: { domain: series.map((s) => s.name), range: series.map((s) => s.color) } }));
  if (caveats.length) box.append(el('span', { class: 'swatch-item caveat-key' }, el('i', { class: 'sw-caveat' }), 'the codes summed change (see the note)'));
  return box;
}

/**
 * A line-and-dots chart of series over years, with a tip naming the unit. caveats ({ year }) are drawn as
 * dashed rules at their years, labelled on the chart and keyed in the legend.
 */
export function yearChart(node, series, { years, yLabel, unit, empty, caveats = [] }) {
  const points = withGaps(series, years);
  const have = points.filter((d) => d.value !== null);
  if (!have.length) { node.replaceChildren(Object.assign(document.createElement('p'), { className: 'empty', textContent: empty })); return; }
  const lo = Math.min(...years), hi = Math.max(...years), width = widthOf(node);
  node.replaceChildren(legendOf(series, caveats), Plot.plot({
    ariaLabel: `${series.map((x) => x.name).join(' and ')} by fiscal year (${unit})`,
    ariaDescription: have.map((d) => `${d.series}, FY${d.year}: ${moneyLong(d.value)}`).join('; '),
    width, height: 320, marginLeft: 64, marginRight: 20, marginTop: caveats.length ? 24 : 20,
    x: { label: 'Fiscal year', tickFormat: 'd', domain: [lo - 0.5, hi + 0.5], ticks: yearTicks(lo, hi, width) },
    y: { label: yLabel, tickFormat: money, grid: true, zero: true, nice: true },
    color: { domain: series.map((s) => s.name), range: series.map((s) => s.color) },
    marks: [
      Plot.ruleY([0]),
      Plot.ruleX(caveats, { x: 'year', stroke: '#8a6d00', strokeDasharray: '4 3', strokeWidth: 1.5, ariaDescription: 'caveat' }),
      Plot.text(caveats, { x: 'year', frameAnchor: 'top', dy: -14, dx: 4, textAnchor: 'end', text: (c) => `FY${c.year}: codes changed`, fill: '#8a6d00', fontSize: 11, ariaDescription: 'caveat label' }),
      Plot.lineY(points, { x: 'year', y: 'value', z: 'series', stroke: 'series', strokeWidth: 2.5 }),
      Plot.dot(have, { x: 'year', y: 'value', fill: 'series', r: 5, tip: true, title: (d) => `${d.series}, FY${d.year}\n${moneyLong(d.value)} (${unit})` }),
    ],
  }));
}

// The categories the Census leaves out of general expenditure: the government's utilities, liquor stores
// and insurance trust systems. The API has no concept that drops them (its concepts split by subtype, these
// are functions), so the general pair sums the total concept's categories without them.
export const NOT_GENERAL = ['Electric Utilities', 'Gas Utilities', 'Transit Utilities', 'Water Utilities', 'Liquor Stores', 'Insurance Trust Benefits'];

/**
 * The two pairs the history compares, like with like. total: the Census's headline pair, total expenditure
 * (expenditure_concept=total: direct + payments to other governments) beside total revenue
 * (revenue_concept=total: general + utility + liquor store + insurance trust). general: general spending
 * beside general revenue (revenue_concept=general).
 */
export const PAIRS = {
  total: {
    spending: { name: 'total spending', query: 'category=All%20Categories&expenditure_concept=total', keep: () => true },
    revenue: { name: 'total revenue', query: 'category=All%20Categories&revenue_concept=total' },
    says: 'Total spending (expenditure_concept=total): everything the government spent itself (operations, capital, public assistance, interest on debt, insurance trust benefits, and its utilities and liquor stores) plus what it paid to other governments. Total revenue (revenue_concept=total): general revenue (its taxes and charges, federal, state and local aid) plus its utility, liquor store and insurance trust revenue. The Census\'s headline pair: both lines hold the utilities.',
    // Insurance trust revenue is in this pair only: its retirement seam is marked where the rows show it.
    seam: true,
  },
  general: {
    spending: { name: 'general spending', query: 'expenditure_concept=total', keep: (r) => !NOT_GENERAL.includes(r.category) },
    revenue: { name: 'general revenue', query: 'category=All%20Categories&revenue_concept=general' },
    says: `General spending: total spending without the government's utilities, liquor stores and insurance trust benefits. The API has no general-expenditure concept, so this line sums the expenditure_concept=total rows of every category but ${NOT_GENERAL.join(', ')}. General revenue (revenue_concept=general): its taxes and charges, federal, state and local aid, without utility, liquor store and insurance trust revenue.`,
  },
};

/**
 * Per resident: whose population divides each year. The API names the population years its rows carry
 * (provenance.transformations.per_capita.population_year_by_year); one older than its fiscal year is said.
 */
export function perResidentText(view, ...provenances) {
  if (view.scale !== 'per_capita') return '';
  const by = new Map();
  for (const p of provenances) for (const [y, pops] of Object.entries(p?.transformations?.per_capita?.population_year_by_year ?? {})) by.set(Number(y), pops);
  const older = [...by].filter(([y, pops]) => pops.some((p) => p < y)).sort((a, b) => a[0] - b[0]);
  if (!older.length) return '';
  return `Per resident divides by the population the Census carries with each year's rows, which can be older than the year: ${older.map(([y, pops]) => `FY${y} uses the ${pops.join(' and ')} count`).join('; ')}.`;
}

/** Year → sum of the kept rows. */
function keptSums(rows, field, keep) {
  return sumByYear(rows.filter(keep), field);
}

/**
 * The aid view: federal, state and local aid, each from the API's total recipe for its leg. The recipes carry
 * the wide-era aggregate code (B--, C--, D--) through FY2011 and every modern code from FY2012, so each line
 * means the same in every year, where the revenue line's aid steps at FY2019 (the B89, C89, D89 seam). Each is
 * its own line: the spec forbids adding a total recipe to category rows or to another recipe.
 */
export const AID = [
  { recipe: 'ig_federal_total_wide', name: 'federal aid', color: '#2e86ab' },
  { recipe: 'ig_state_total_wide', name: 'state aid', color: '#6a4c93' },
  { recipe: 'ig_local_total_wide', name: 'local aid', color: '#3a7d44' },
];

async function drawAid(panel, view, ctx) {
  const q = `adjust=${view.adjust}&per_capita=${view.scale === 'per_capita'}`;
  const calls = AID.map((a) => `/api/v1/governments/${view.govid}/revenue?recipe=${a.recipe}&${q}`);
  const answers = await Promise.all(calls.map((c) => getAll(c)));
  if (ctx.stale()) return;
  const field = amountField(view);
  const unit = unitLabel(view, answers[0].meta.base_year);
  yearChart(panel.querySelector('.chart'), AID.map((a, i) => ({ name: a.name, color: a.color, values: sumByYear(answers[i].data, field) })),
    { years: ctx.years, yLabel: `US$ (${unit})`, unit, empty: 'No aid from other governments in the published years for this government.' });
  panel.querySelector('.note').textContent = [
    `Revenue from other governments, one line per giver, each from the API's total recipe for its leg (${AID.map((a) => a.recipe).join(', ')}):`,
    'through FY2011 the whole leg as the Census published it in one aggregate code, from FY2012 every code of the leg summed, so a line means the same in every year.',
    'The revenue line of the other views counts aid by category rows, which leave the aggregate codes out through FY2011: its aid steps where these lines do not.',
    'The lines are not to be added to each other or to the revenue line (each is a self-contained series).',
    `Fiscal years ${ctx.holes} have no source data: gaps, not zeros.`,
    perResidentText(view, ...answers.map((a) => a.provenance)),
  ].filter(Boolean).join(' ');
  callLinks(panel.querySelector('.links'), AID.flatMap((a, i) => [[`${a.name} API call`, calls[i]], [`${a.name} as CSV`, `${calls[i]}&format=csv`]]));
}

/** The spending and revenue history of a government, as the pair view.pair names (summed over subtypes), or its aid. */
export async function drawHistory(panel, view, ctx) {
  if (view.pair === 'aid') return drawAid(panel, view, ctx);
  const pair = PAIRS[view.pair] ?? PAIRS.total;
  const q = `adjust=${view.adjust}&per_capita=${view.scale === 'per_capita'}`;
  const base = `/api/v1/governments/${view.govid}`;
  const calls = { spending: `${base}/spending?${pair.spending.query}&${q}`, revenue: `${base}/revenue?${pair.revenue.query}&${q}` };
  // Spending by category too (the general pair's rows already are): a category a year lacks is named in the note.
  const byCategory = pair.spending.query.includes('All%20Categories') ? `${base}/spending?expenditure_concept=total&${q}` : calls.spending;
  const [s, r, c] = await Promise.all([getAll(calls.spending), getAll(calls.revenue), byCategory === calls.spending ? null : getAll(byCategory)]);
  if (ctx.stale()) return;
  const field = amountField(view);
  const unit = unitLabel(view, s.meta.base_year);
  const seam = pair.seam ? retirementSeam(r.data, field) : [];
  const aid = aidSeam(r.data, field);
  const kept = (c ?? s).data.filter(pair.spending.keep);
  const absent = ctx.years.map((y) => absentText(absentCategories(kept, field, y), y)).filter(Boolean).join(' ');
  yearChart(panel.querySelector('.chart'), [
    { name: pair.spending.name, color: COLORS.spending, values: keptSums(s.data, field, pair.spending.keep) },
    { name: pair.revenue.name, color: COLORS.revenue, values: sumByYear(r.data, field) },
  ], { years: ctx.years, yLabel: `US$ (${unit})`, unit, empty: 'No spending or revenue rows for this government in the published years.', caveats: changeYears([...seam, ...aid]) });
  const caveats = [
    seam.length ? `${caveatText(pair.revenue.name[0].toUpperCase() + pair.revenue.name.slice(1), seam)} The Census stopped collecting these employee-retirement codes after FY2016: a change of scope, not of the government.` : '',
    // The API's own flag: some FY2011 categories hold only the intergovernmental leg (no direct rows in the corpus).
    s.meta.expenditure_concept_direct_suppressed ? 'In some FY2011 categories the corpus holds only payments to other governments, no direct spending (the API\'s expenditure_concept_direct_suppressed): spending there is that leg alone.' : '',
    aidSeamText(aid),
    absent ? `Spending: ${absent}` : '',
    perResidentText(view, s.provenance, r.provenance),
  ].filter(Boolean).join(' ');
  panel.querySelector('.note').textContent = `${pair.says} Each point sums the year's subtypes. Fiscal years ${ctx.holes} have no source data: gaps, not zeros.${caveats ? ` ${caveats}` : ''}`;
  callLinks(panel.querySelector('.links'), [
    ['spending API call', calls.spending], ['revenue API call', calls.revenue],
    ['spending as CSV', `${calls.spending}&format=csv`], ['revenue as CSV', `${calls.revenue}&format=csv`],
    ...(c ? [['spending by category API call', byCategory]] : []),
  ]);
}
