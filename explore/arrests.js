// The school explorer: wires the controls, the address and the two charts.
// Every change goes through setView(), which normalises the view, writes it
// to the address and redraws; popstate and the first load read it back, so a
// shared link or Back shows the same view.

import { allRows, calls, keptFeature, keptRows, rows } from '/explore/arrests-api.js';
import { drawDistrictPanel } from '/explore/arrests-chart.js';
import { PER_1000, RACE_WORDS, SEX_WORDS, groupWords, per1000 } from '/explore/arrests-labels.js';
import { drawMapPanel } from '/explore/arrests-map.js';
import { districtFinder } from '/explore/arrests-search.js';
import { FIPS_BY_CODE } from '/explore/arrests-states.js';
import { readView, writeView } from '/explore/arrests-url.js';

const $ = (id) => document.getElementById(id);
/** The page's panels, as the finance page's DRAW: each draws its section (#panel-<name>) from the view and the paint's data. */
const PANELS = { district: drawDistrictPanel, map: drawMapPanel };
let models = [], states = [], view = {}, drawn = 0;
/** The data of the last paint, kept so a resize redraws without fetching. */
let last = null;

function options(select, list) {
  select.replaceChildren(...list.map(([value, text, title]) => {
    const o = document.createElement('option');
    o.value = value; o.textContent = text;
    if (title) o.title = title;
    return o;
  }));
}

/** Fills in what the address left out or got wrong: the API's default model, the model's latest year, … */
function normalise(v) {
  const model = models.find((m) => m.model === v.model) ?? models.find((m) => m.is_default) ?? models[0];
  const years = model.years_in_mirror ?? model.years;
  const leaid = /^\d{7}$/.test(v.leaid ?? '') ? v.leaid : undefined;
  const state = states.some((s) => s.state === v.state) ? v.state : states[0]?.state;
  return {
    leaid, state, model: model.model,
    year: years.includes(v.year) ? v.year : years[years.length - 1],
    // Own keys only: `in` would take ?race=constructor as a race.
    race: Object.hasOwn(RACE_WORDS, v.race ?? '') ? v.race : 'BL',
    sex: Object.hasOwn(SEX_WORDS, v.sex ?? '') ? v.sex : 'M',
    interval: ['50', '80', '95'].includes(String(v.interval)) ? String(v.interval) : '95',
  };
}

function setView(patch, how = 'push') {
  view = normalise({ ...view, ...patch });
  writeView(view, how);
  showControls();
  repaint();
}

/** paint(), its failure said on the page (a refused call names itself) rather than left as an unhandled rejection. */
function repaint() {
  const mine = drawn + 1; // the paint about to start
  paint().catch((e) => { if (mine === drawn) $('title').textContent = `The estimates could not be loaded: ${e.message}`; });
}

function modelOf(v) { return models.find((m) => m.model === v.model); }

function showControls() {
  const m = modelOf(view);
  options($('year'), (m.years_in_mirror ?? m.years).map((y) => [y, y]));
  for (const k of ['state', 'model', 'year', 'race', 'sex', 'interval']) $(k).value = view[k];
  yearsNote(m);
  $('model-desc').textContent = `${m.model}${m.is_default ? ' (the API’s default)' : ''}: ${m.description}`;
}

/**
 * The page opens on the API's default model (unified_m2), so its numbers are the ones the API answers without
 * a model; that model is fit on one school year, so its chart is one column. Beside the chart the page says so
 * and offers the family's models that span several years, one click away.
 */
function yearsNote(m) {
  const years = m.years_in_mirror ?? m.years;
  const box = $('years-note');
  box.hidden = years.length > 1;
  if (years.length > 1) { box.replaceChildren(); return; }
  const family = m.model.split('_')[0];
  const many = models.filter((x) => (x.years_in_mirror ?? x.years).length > 1);
  const near = many.filter((x) => x.model.startsWith(`${family}_`));
  const spans = [...new Set(many.flatMap((x) => x.years_in_mirror ?? x.years))].sort();
  const p = document.createElement('p');
  p.className = 'note';
  p.textContent = `One column per series: ${m.model}${m.is_default ? ', the API’s default model,' : ''} is fit on ${years[0]} only, so it has no other school year to draw. For a trend over ${spans.join(', ')}, pick a model fit on several years:`;
  box.replaceChildren(p, ...near.map((x) => {
    const b = document.createElement('button');
    b.type = 'button'; b.className = 'pick'; b.textContent = x.model; b.title = x.description;
    b.addEventListener('click', () => setView({ model: x.model }));
    return b;
  }));
}

async function paint() {
  const v = view, mine = ++drawn; // a newer paint may start before this one's answers arrive
  const m = modelOf(v);
  const years = m.years_in_mirror ?? m.years;
  const stateName = states.find((s) => s.state === v.state)?.state_name ?? v.state;
  const group = groupWords(v.race, v.sex);
  const links = [calls.state(v), calls.stateMap(v)];
  if (v.leaid) links.unshift(calls.district(v));
  const [districtRows, stateRows, list, estimates, outline] = await Promise.all([
    v.leaid ? rows(calls.district(v)) : [],
    rows(calls.state(v)),
    keptRows(calls.districtsOf(v.state)),
    allRows(calls.stateMap(v)),
    keptFeature(`/explore/geo/counties-${FIPS_BY_CODE.get(v.state)}.json`, 'state'),
  ]);
  if (mine !== drawn) return;
  // The district's own state, when a leaid from another state was typed into the address
  const district = districtRows[0] ?? null;
  // (only to a state the page lists, so a district of a state missing from the list cannot bounce between the two)
  if (district && district.state !== v.state && states.some((s) => s.state === district.state)) { setView({ state: district.state }, 'replace'); return; }
  last = { v, years, stateName, group, districtRows, stateRows, list, estimates, outline };
  draw();
  const at = stateRows.find((r) => r.race === v.race && r.sex === v.sex && r.year === v.year);
  $('state-line').textContent = at
    ? `${stateName} as a whole, ${group}, ${v.year}: ${per1000(at.rate_median)} ${PER_1000} (${v.interval}% interval ${per1000(at.rate_lower)} to ${per1000(at.rate_upper)}).`
    : `${stateName}: no state estimate for ${group} in ${v.year}.`;
  $('links').replaceChildren(...links.map((c) => {
    const a = document.createElement('a');
    a.href = c; a.textContent = `API call: ${c}`;
    return a;
  }));
}

function draw() {
  if (!last) return;
  const ctx = { ...last, pick: (d) => setView({ leaid: d.leaid, state: d.state }) };
  for (const [name, drawPanel] of Object.entries(PANELS)) drawPanel($(`panel-${name}`), last.v, ctx);
}

async function start() {
  const [info, modelRows] = await Promise.all([rows(calls.info()), rows(calls.models())]);
  models = modelRows;
  // The banner follows the service's own word (the mirror's manifest), never this page's.
  if (info[0]?.synthetic) {
    $('synthetic').textContent = 'Synthetic data: generated in the real layout; it describes no real district.';
    $('synthetic').hidden = false;
    $('map-note').textContent = 'Each dot is a synthetic district, placed at a random point inside its state’s Census outline: it marks no real place. Click one to pick it. Hollow dots have no estimate for this group (no students enrolled in it).';
  }
  const byState = new Map((await rows(calls.states(models.find((m) => m.is_default)?.model ?? models[0].model))).map((r) => [r.state, r]));
  states = [...byState.values()].sort((a, b) => a.state_name.localeCompare(b.state_name));
  options($('state'), states.map((s) => [s.state, s.state_name]));
  options($('model'), models.map((m) => [m.model, m.is_default ? `${m.model} (default)` : m.model, m.description]));
  options($('race'), Object.entries(RACE_WORDS));
  options($('sex'), Object.entries(SEX_WORDS));
  for (const k of ['state', 'model', 'year', 'race', 'sex', 'interval']) {
    // a new state is a new map: the district of another state is put down
    $(k).addEventListener('change', () => setView(k === 'state' ? { state: $(k).value, leaid: undefined } : { [k]: $(k).value }));
  }
  districtFinder({ input: $('q'), list: $('results'), note: $('search-note'), state: () => $('state').value, onPick: (d) => setView({ leaid: d.leaid, state: d.state }) });
  addEventListener('popstate', () => { view = normalise(readView()); showControls(); repaint(); });
  // Charts take their container's width: redraw when it changes (not its height, which drawing changes).
  let t = 0, width = 0;
  new ResizeObserver(([e]) => {
    if (Math.round(e.contentRect.width) === width) return;
    width = Math.round(e.contentRect.width);
    clearTimeout(t); t = setTimeout(draw, 100);
  }).observe(document.querySelector('main'));
  setView(readView(), 'replace');
}

start().catch((e) => { $('title').textContent = `The explorer could not start: ${e.message}`; });
