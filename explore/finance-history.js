// A government's history: spending and revenue per fiscal year, and the same
// line chart for one category (finance-breakdown.js). The mirror has no rows
// for FY2012-2018: those years are drawn as gaps (null points break Plot's
// line), never as a line across them, and each year with data gets a dot.
/* global Plot */
import { callLinks, getAll, money, moneyLong, widthOf } from '/explore/format.js';

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

/** A line-and-dots chart of series over years, with a tip naming the unit. */
export function yearChart(node, series, { years, yLabel, unit, empty }) {
  const points = withGaps(series, years);
  const have = points.filter((d) => d.value !== null);
  if (!have.length) { node.replaceChildren(Object.assign(document.createElement('p'), { className: 'empty', textContent: empty })); return; }
  node.replaceChildren(Plot.plot({
    width: widthOf(node), height: 320, marginLeft: 64, marginRight: 20,
    x: { label: 'Fiscal year', tickFormat: 'd', domain: [Math.min(...years) - 0.5, Math.max(...years) + 0.5], ticks: Math.min(10, Math.floor(widthOf(node) / 70)) },
    y: { label: yLabel, tickFormat: money, grid: true, zero: true },
    color: { domain: series.map((s) => s.name), range: series.map((s) => s.color), legend: series.length > 1 },
    marks: [
      Plot.ruleY([0]),
      Plot.lineY(points, { x: 'year', y: 'value', z: 'series', stroke: 'series', strokeWidth: 2.5 }),
      Plot.dot(have, { x: 'year', y: 'value', fill: 'series', r: 5, tip: true, title: (d) => `${d.series}, FY${d.year}\n${moneyLong(d.value)} (${unit})` }),
    ],
  }));
}

/** The spending and revenue history of a government (all categories, summed over subtypes). */
export async function drawHistory(panel, view, ctx) {
  const q = `category=All%20Categories&adjust=${view.adjust}&per_capita=${view.scale === 'per_capita'}`;
  const base = `/api/v1/governments/${view.govid}`;
  const calls = { spending: `${base}/spending?${q}`, revenue: `${base}/revenue?${q}` };
  const [s, r] = await Promise.all([getAll(calls.spending), getAll(calls.revenue)]);
  if (ctx.stale()) return;
  const field = amountField(view);
  const unit = unitLabel(view, s.meta.base_year);
  yearChart(panel.querySelector('.chart'), [
    { name: 'spending', color: COLORS.spending, values: sumByYear(s.data, field) },
    { name: 'revenue', color: COLORS.revenue, values: sumByYear(r.data, field) },
  ], { years: ctx.years, yLabel: `US$ (${unit})`, unit, empty: 'No spending or revenue rows for this government in the published years.' });
  panel.querySelector('.note').textContent = `Spending: all categories, ${s.meta.expenditure_concept ?? 'primary'} concept; revenue: all categories, ${r.meta.revenue_concept ?? 'general'} concept; each point sums the year's subtypes. Fiscal years ${ctx.holes} have no source data: gaps, not zeros.`;
  callLinks(panel.querySelector('.links'), [
    ['spending API call', calls.spending], ['revenue API call', calls.revenue],
    ['spending as CSV', `${calls.spending}&format=csv`], ['revenue as CSV', `${calls.revenue}&format=csv`],
  ]);
}
