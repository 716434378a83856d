// The government against its peer cohort in one category, per resident: the
// cohort's p25-p75 band and median from /peer-comparison, the target's own line
// and dots. The percentiles are computed inside each (year, subtype) cell and
// are not additive, so one subtype is shown at a time. A cohort can be empty
// (the largest governments may have no peers): then a note says so.
/* global Plot */
import { callLinks, el, getAll, money, moneyLong, widthOf } from '/explore/format.js';
import { unitLabel, withGaps, yearTicks } from '/explore/finance-history.js';

function byYear(rows, role, subtype, field) {
  const m = new Map();
  for (const r of rows) if (r.role === role && r.spend_subtype === subtype && r[field] !== null && r[field] !== undefined) m.set(r.year, (m.get(r.year) ?? 0) + r[field]);
  return m;
}

/** The population window the cohort came from (meta.pop_range), said in words when it had to widen. */
function windowNote(meta) {
  const r = meta.pop_range;
  if (!Array.isArray(r)) return '';
  const range = r[1] === null ? 'of any size' : `${r[0]}–${r[1]} times its population`;
  return meta.pop_range_widened
    ? ` Peers of ${range}: the usual ${meta.pop_range_default?.join('–') ?? '0.7–1.3'} held too few.`
    : ` Peers of ${range}.`;
}

function plotPeers(node, rows, subtype, field, years, unit, name) {
  const [p25, p50, p75, me] = ['summary_p25', 'summary_p50', 'summary_p75', 'target'].map((role) => byYear(rows, role, subtype, field));
  const band = withGaps([{ name: 'lo', values: p25 }], years).map((d) => ({ year: d.year, lo: d.value, hi: p75.get(d.year) ?? null }));
  const lines = withGaps([{ name: 'peer median', values: p50 }, { name, values: me }], years);
  const peers = rows.filter((r) => r.role === 'peer' && r.spend_subtype === subtype && r[field] !== null && r[field] !== undefined);
  const width = widthOf(node);
  node.replaceChildren(Plot.plot({
    width, height: 340, marginLeft: 64, marginRight: 20,
    x: { label: 'Fiscal year', tickFormat: 'd', domain: [Math.min(...years) - 0.5, Math.max(...years) + 0.5], ticks: yearTicks(Math.min(...years), Math.max(...years), width) },
    y: { label: `US$ (${unit})`, tickFormat: money, grid: true, zero: true },
    // Every mark is keyed: the band, each peer's dot, the median and the government itself.
    color: { domain: ['peer p25-p75', 'each peer', 'peer median', name], range: ['#c6dbef', '#9ecae1', '#08519c', '#d1495b'], legend: true },
    marks: [
      Plot.areaY(band, { x: 'year', y1: 'lo', y2: 'hi', fill: '#c6dbef', fillOpacity: 0.8, ariaDescription: 'peer band' }),
      // A year standing alone (FY2011 between no data and the gap) has no width for the area: its band is a bar.
      Plot.ruleX(band.filter((d) => d.lo !== null && d.hi !== null), { x: 'year', y1: 'lo', y2: 'hi', stroke: '#c6dbef', strokeWidth: 10, ariaDescription: 'peer band per year' }),
      Plot.dot(peers, { x: 'year', y: field, r: 2, fill: () => 'each peer', title: (r) => `${r.gov_name}, FY${r.year}\n${moneyLong(r[field])} (${unit})`, tip: true }),
      Plot.lineY(lines, { x: 'year', y: 'value', z: 'series', stroke: (d) => d.series, strokeWidth: 2.5, ariaDescription: 'median and target lines' }),
      Plot.dot(lines.filter((d) => d.value !== null), { x: 'year', y: 'value', fill: 'series', r: 4.5, tip: true, title: (d) => `${d.series}, FY${d.year}\n${moneyLong(d.value)} (${unit})` }),
    ],
  }));
}

export async function drawPeers(panel, view, ctx) {
  const category = view.category || 'Police';
  const span = `${Math.min(...ctx.years)}-${Math.max(...ctx.years)}`;
  const call = `/api/v1/governments/${view.govid}/peer-comparison?category=${encodeURIComponent(category)}&years=${span}&adjust=${view.adjust}`;
  const r = await getAll(call);
  if (ctx.stale()) return;
  const field = view.adjust === 'real' ? 'amt_per_capita_real' : 'amt_per_capita_nominal';
  const unit = unitLabel(view, r.meta.base_year, true);
  const subtypes = [...new Set(r.data.filter((x) => x.role !== 'peer').map((x) => x.spend_subtype))];
  const subtype = subtypes.includes(view.subtype) ? view.subtype : (subtypes[0] ?? view.subtype);
  ctx.setOptions('subtype', subtypes.length ? subtypes : [subtype], subtype);
  const box = panel.querySelector('.chart');
  const hasCohort = r.data.some((x) => x.role.startsWith('summary_'));
  const m = r.meta;
  if (!hasCohort) {
    box.replaceChildren(el('p', { class: 'empty' }, `No peer cohort for this government in ${category}: no government of its type and size reported (${m.n_units_reporting ?? 0} of ${m.n_units_expected ?? 0} peers).${windowNote(m)}`));
  } else {
    plotPeers(box, r.data, subtype, field, ctx.years, unit, ctx.gov?.gov_name ?? view.govid);
  }
  panel.querySelector('.note').textContent = hasCohort
    ? `${category}, ${subtype} spending per resident. Cohort of ${m.cohort_year}: ${m.n_units_reporting} of ${m.n_units_expected} peers reported.${windowNote(m)} Percentiles hold within a (year, subtype) cell only.`
    : '';
  callLinks(panel.querySelector('.links'), [['peer comparison API call', call]]); // the route answers JSON only
}
