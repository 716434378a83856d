// What the money went to: one year's spending by category, stacked by subtype
// (the largest categories first), and a chosen category's line over the years.
// A category is chosen by clicking its bar or its button (keyboard).
/* global Plot */
import { callLinks, el, getAll, money, moneyLong, widthOf } from '/explore/format.js';
import { amountField, sumByYear, unitLabel, yearChart } from '/explore/finance-history.js';
import { absentCategories, absentText, caveatText, changeYears, codeChanges } from '/explore/finance-caveats.js';

const TOP = 12;
const SUBTYPE_COLORS = { operations: '#2e86ab', capital: '#f18f01', intergovernmental: '#6a994e', interest: '#bc4b51', other: '#8d99ae' };

function totalsByCategory(rows, field) {
  const t = new Map();
  for (const r of rows) if (r[field] !== null && r[field] !== undefined) t.set(r.category, (t.get(r.category) ?? 0) + r[field]);
  return [...t].sort((a, b) => b[1] - a[1]);
}

// A bar whose category's series changes meaning (its codes change between years) is marked on its label.
const MARK = ' †';

function bars(node, rows, field, unit, onPick, caveated) {
  const top = totalsByCategory(rows, field).slice(0, TOP).map(([c]) => c);
  const shown = rows.filter((r) => top.includes(r.category) && r[field] !== null && r[field] !== undefined);
  const subtypes = [...new Set(shown.map((r) => r.spend_subtype))];
  const width = widthOf(node);
  const chart = Plot.plot({
    ariaLabel: `Spending by category, the ${top.length} largest, stacked by subtype (${unit})`,
    ariaDescription: top.map((c) => `${c}: ${moneyLong(shown.filter((r) => r.category === c).reduce((n, r) => n + r[field], 0))}`).join('; '),
    width, height: 40 + top.length * 28, marginLeft: Math.min(170, width * 0.4), marginRight: 20,
    x: { label: `US$ (${unit})`, tickFormat: money, grid: true, ticks: Math.max(2, Math.floor(width / 110)) },
    y: { label: null, domain: top, tickFormat: (c) => (caveated.has(c) ? `${c}${MARK}` : c) },
    color: { domain: subtypes, range: subtypes.map((s) => SUBTYPE_COLORS[s] ?? '#999') },
    marks: [
      Plot.barX(shown, { x: field, y: 'category', fill: 'spend_subtype', tip: true, title: (r) => `${r.category}, ${r.spend_subtype}\n${moneyLong(r[field])} (${unit})`, cursor: 'pointer' }),
      Plot.ruleX([0]),
    ],
  });
  // Plot's pointer (the tip) takes the click's target, and names the pointed row as the plot's value.
  chart.addEventListener('click', () => { if (chart.value?.category) onPick(chart.value.category); });
  const legend = el('div', { class: 'chart-legend' }, Plot.legend({ color: { domain: subtypes, range: subtypes.map((s) => SUBTYPE_COLORS[s] ?? '#999') } }));
  if (top.some((c) => caveated.has(c))) legend.append(el('span', { class: 'swatch-item caveat-key' }, `${MARK.trim()} the codes summed change between years (see the note)`));
  node.replaceChildren(legend, chart);
  return top;
}

/** The breakdown panel: bars for view.year, and view.focus's history when a category is chosen. */
export async function drawBreakdown(panel, view, ctx) {
  const year = view.year || String(ctx.latestYear);
  const q = `adjust=${view.adjust}&per_capita=${view.scale === 'per_capita'}`;
  const base = `/api/v1/governments/${view.govid}/spending`;
  const yearCall = `${base}?years=${year}&${q}`;
  // Every published year too: where a category's codes change between years, its bar is marked.
  const yearsCall = `${base}?${q}`;
  const [s, all] = await Promise.all([getAll(yearCall), getAll(yearsCall)]);
  if (ctx.stale()) return;
  const field = amountField(view);
  const changes = new Map();
  for (const c of new Set(all.data.map((r) => r.category))) {
    const ch = codeChanges(all.data.filter((r) => r.category === c), field);
    if (ch.length) changes.set(c, ch);
  }
  const unit = unitLabel(view, s.meta.base_year);
  const chartBox = panel.querySelector('.chart');
  const calls = [['breakdown API call', yearCall], ['breakdown as CSV', `${yearCall}&format=csv`], ['codes by year API call', yearsCall]];
  let top = [];
  if (!s.data.length) chartBox.replaceChildren(el('p', { class: 'empty' }, `No spending rows for FY${year}: the mirror publishes ${ctx.years.join(', ')}.`));
  else top = bars(chartBox, s.data, field, unit, (c) => ctx.change({ focus: c }), changes);
  const caveats = top.filter((c) => changes.has(c)).map((c) => caveatText(c, changes.get(c)));
  const absent = absentText(absentCategories(all.data, field, Number(year)), year);
  panel.querySelector('.note').textContent = `FY${year}, the ${top.length} largest categories, stacked by subtype: spending as the API's primary concept (operations, capital outlay and assistance; no interest, insurance benefits or payments to other governments). Click a bar or a button for the category's history.${absent ? ` ${absent}` : ''}${caveats.length ? ` ${MARK.trim()} ${caveats.join(' ')}` : ''}`;
  panel.querySelector('.picks').replaceChildren(...top.map((c) => el('button', { type: 'button', class: 'pick', 'aria-pressed': String(c === view.focus), on: { click: () => ctx.change({ focus: c }) } }, c)));
  const focusBox = panel.querySelector('.focus');
  if (view.focus) {
    const call = `${base}?category=${encodeURIComponent(view.focus)}&${q}`;
    const f = await getAll(call);
    if (ctx.stale()) return;
    const funit = unitLabel(view, f.meta.base_year);
    const fchanges = codeChanges(f.data, field);
    // The API's suggestions: years the category has no row in because the source combined its codes there.
    const hints = (f.suggestions ?? []).map((x) => x.hint);
    const caveat = [caveatText(view.focus, fchanges, f.provenance?.series_break_refs ?? []), ...hints].filter(Boolean).join(' ');
    focusBox.replaceChildren(el('h3', {}, `${view.focus}: spending over the years`), el('div', { class: 'chart-focus' }), ...(caveat ? [el('p', { class: 'caveat' }, caveat)] : []));
    yearChart(focusBox.querySelector('.chart-focus'), [{ name: view.focus, color: '#5b3c88', values: sumByYear(f.data, field) }],
      { years: ctx.years, yLabel: `US$ (${funit})`, unit: funit, empty: `No ${view.focus} rows for this government.`, caveats: changeYears(fchanges) });
    calls.push([`${view.focus} history API call`, call]);
  } else focusBox.replaceChildren();
  callLinks(panel.querySelector('.links'), calls);
}
