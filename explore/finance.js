// The finance explorer: the view (finance-url.js) is the single state; each
// user change writes it to the URL and redraws the visible panel. Each panel's
// drawing lives in its own file; this one wires controls, tabs and search.
import { governmentFinder } from '/explore/finance-search.js';
import { el, getJson } from '/explore/format.js';
import { readView, writeView } from '/explore/finance-url.js';
import { drawHistory } from '/explore/finance-history.js';
import { drawBreakdown } from '/explore/finance-breakdown.js';
import { drawPeers } from '/explore/finance-peers.js';
import { drawMap, postalOf } from '/explore/finance-map.js';

const $ = (id) => document.getElementById(id);
const DRAW = { history: drawHistory, breakdown: drawBreakdown, peers: drawPeers, map: drawMap };
let view = readView();
let categories = [];
// The money routes' default concept, as the API defines it (expenditure_concept: primary = operations + capital
// + assistance): a category with none of these subtypes (Interest on Debt) has no rows in any view of this page.
const PRIMARY = ['operations', 'capital', 'assistance'];

/** An address's values brought within what the API publishes (a year, a category), so no view asks for a 400. */
function normalised(v) {
  const known = (c) => categories.includes(c);
  return {
    ...v,
    year: site.years.map(String).includes(v.year) ? v.year : '',
    category: known(v.category) ? v.category : 'Police',
    focus: v.focus && !known(v.focus) ? '' : v.focus,
    subtype: PRIMARY.includes(v.subtype) ? v.subtype : 'operations',
    map: v.map && !postalOf.has(v.map) ? '' : v.map,
  };
}
let site = { years: [2011, 2019, 2020], holes: [] };
let gov = null;
// Draws overlap when the reader changes two settings quickly: only the latest may paint.
let drawing = 0;

function change(patch) {
  view = { ...view, ...patch };
  writeView(view);
  render();
}

function fail(message) {
  $('error').hidden = false;
  $('error').textContent = message;
}

function setOptions(id, values, value, label = (v) => v) {
  const select = $(id);
  const now = [...select.options].map((o) => o.value).join('|');
  if (now !== values.join('|')) select.replaceChildren(...values.map((v) => el('option', { value: v }, label(v))));
  select.value = value;
}

/** The chrome around the panel: intro or title, tabs, the controls that apply to this panel. */
function frame(tab) {
  $('intro').hidden = Boolean(view.govid);
  $('gov').hidden = !view.govid;
  for (const t of Object.keys(DRAW)) {
    $(`tab-${t}`).setAttribute('aria-selected', String(t === tab));
    // One tab stop for the tab list (the selected tab); the arrow keys move between tabs (tabKeys).
    $(`tab-${t}`).tabIndex = t === tab ? 0 : -1;
    $(`panel-${t}`).hidden = t !== tab;
  }
  for (const label of document.querySelectorAll('.controls label')) label.hidden = !label.dataset.for.split(' ').includes(tab);
  $('pair').value = view.pair;
  $('adjust').value = view.adjust;
  $('scale').value = view.scale;
  setOptions('year', site.years.map(String), view.year || String(site.latestYear));
  if (![...$('category').options].some((o) => o.value === view.category)) $('category').append(el('option', { value: view.category }, view.category));
  $('category').value = view.category;
  $('subtype').value = view.subtype;
  $('error').hidden = true;
  if (gov) {
    $('title').textContent = gov.gov_name;
    const pop = gov.by_year?.at(-1)?.population;
    $('subtitle').textContent = `${gov.type_label}, ${gov.state ?? gov.fips_state} · id ${gov.canonical_govid}${pop ? ` · population ${pop.toLocaleString('en-US')} (FY${gov.by_year.at(-1).year})` : ''}`;
    document.title = `${gov.gov_name}: civicstream finance explorer`;
  } else document.title = 'civicstream finance: explore';
}

/** Draws the view. body[data-busy] is set while drawing, body[data-drawn] counts finished draws (tests wait on both). */
async function render() {
  const mine = ++drawing;
  document.body.dataset.busy = 'true';
  const ctx = {
    years: site.years, latestYear: site.latestYear, holes: site.holes, gov,
    stale: () => mine !== drawing, change, fail,
    setOptions: (id, values, value) => setOptions(id, values, value),
  };
  try {
    if (view.govid && gov?.canonical_govid !== view.govid) {
      const g = await getJson(`/api/v1/governments/${view.govid}`);
      if (ctx.stale()) return;
      gov = g.data[0];
      ctx.gov = gov;
    }
    if (!view.govid) gov = null;
    // Before a pick there is nothing to chart: the intro and the national map stand in.
    const tab = view.govid ? view.tab : 'map';
    frame(tab);
    await DRAW[tab]($(`panel-${tab}`), view, ctx);
  } catch (e) {
    if (!ctx.stale()) fail(`Could not draw this view: ${e.message}`);
  }
  if (ctx.stale()) return;
  delete document.body.dataset.busy;
  document.body.dataset.drawn = String(mine);
}

async function boot() {
  const [root, cats] = await Promise.all([getJson('/api/v1/'), getJson('/api/v1/categories?type=spending')]);
  const info = root.data[0];
  site = { years: info.published_years, latestYear: Math.max(...info.published_years), holes: runs(info.holes) };
  // The years as they are, not a span: a sample year (not ending in 2 or 7) is said to be one.
  const sample = site.years.filter((y) => y % 10 !== 2 && y % 10 !== 7);
  $('intro-years').textContent = `, fiscal years ${site.years.join(', ')}${sample.length === site.years.length ? ' (all survey sample years: the Census surveys every government only in years ending in 2 or 7)' : ''}${site.holes ? `; ${site.holes} are not in this mirror` : ''}`;
  categories = [...new Set(cats.data.filter((c) => c.category_type === 'expenditure' && PRIMARY.includes(c.subtype)).map((c) => c.category))].sort();
  view = normalised(view);
  writeView(view, true);
  setOptions('category', categories, view.category);
  for (const id of ['pair', 'adjust', 'scale', 'year', 'category', 'subtype']) $(id).addEventListener('change', () => change({ [id]: $(id).value }));
  // The map opens on the government's own state (a state government sees the nation).
  const mapOf = () => (gov && gov.type_label !== 'state' && !view.map && postalOf.has(gov.fips_state) ? { map: gov.fips_state } : {});
  for (const t of Object.keys(DRAW)) $(`tab-${t}`).addEventListener('click', () => change({ tab: t, ...(t === 'map' ? mapOf() : {}) }));
  tabKeys((t) => change({ tab: t, ...(t === 'map' ? mapOf() : {}) }));
  // The examples are links (they work without script too); with it, no page reload.
  for (const a of document.querySelectorAll('#intro a')) a.addEventListener('click', (e) => { e.preventDefault(); view = normalised(readView(a.search)); writeView(view); render(); });
  governmentFinder({ input: $('q'), list: $('results'), note: $('search-note'), onPick: (g) => change({ govid: g.canonical_govid, focus: '' }) });
  addEventListener('popstate', () => { view = normalised(readView()); render(); });
  // Charts take their container's width: redraw when it changes (phones turning, windows resizing).
  let width = document.documentElement.clientWidth, timer = 0;
  addEventListener('resize', () => {
    clearTimeout(timer);
    timer = setTimeout(() => { if (document.documentElement.clientWidth !== width) { width = document.documentElement.clientWidth; render(); } }, 200);
  });
  await render();
}

/** The tab list by keyboard (WAI-ARIA tabs): Left/Right (wrapping), Home and End select a tab and focus it. */
function tabKeys(select) {
  const tabs = Object.keys(DRAW);
  document.querySelector('[role=tablist]').addEventListener('keydown', (e) => {
    const at = tabs.indexOf(view.tab);
    const to = { ArrowRight: (at + 1) % tabs.length, ArrowLeft: (at + tabs.length - 1) % tabs.length, Home: 0, End: tabs.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    select(tabs[to]);
    $(`tab-${tabs[to]}`).focus();
  });
}

/** 2012,2013,2014,2016 -> "2012-2014, 2016" (the years with no source data need not be one run). */
function runs(years) {
  const out = [];
  for (let i = 0; i < years.length;) {
    let j = i;
    while (j + 1 < years.length && years[j + 1] === years[j] + 1) j++;
    out.push(i === j ? String(years[i]) : `${years[i]}-${years[j]}`);
    i = j + 1;
  }
  return out.join(', ');
}

boot().catch((e) => fail(`The explorer could not start: ${e.message}`));
