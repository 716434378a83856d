// Maps: the states of the nation, or one state's counties, coloured by a
// category's spending per resident in a year (each government's subtypes
// summed). A unit whose government has no row is drawn hatched, never as zero,
// and labelled by why it may have none: a state government that did not
// report; a county in a sample year, most likely not surveyed; any unit, when
// the API answers with recipe suggestions, because the source published the
// category that year only in combined (aggregate) codes; a shape with no government of the layer at all (a
// Connecticut county, a Virginia independent city, DC among the states) is
// drawn plain as "no county government". Drawn with d3-geo over the Census boundaries this host serves; the
// colour legend is Plot's. A click opens a county, or a state's county map.
/* global d3, Plot, topojson */
import { el, getAll, keptTopology, moneyLong, widthOf } from '/explore/format.js';

// The API names states by postal code, the boundaries by FIPS code.
const POSTAL = 'AL01 AK02 AZ04 AR05 CA06 CO08 CT09 DE10 DC11 FL12 GA13 HI15 ID16 IL17 IN18 IA19 KS20 KY21 LA22 ME23 MD24 MA25 MI26 MN27 MS28 MO29 MT30 NE31 NV32 NH33 NJ34 NM35 NY36 NC37 ND38 OH39 OK40 OR41 PA42 RI44 SC45 SD46 TN47 TX48 UT49 VT50 VA51 WA53 WV54 WI55 WY56';
export const postalOf = new Map(POSTAL.split(' ').map((p) => [p.slice(2), p.slice(0, 2)]));
export const fipsOf = new Map([...postalOf].map(([f, p]) => [p, f]));


/**
 * The governments of the layer the registry lists for a map (county governments of a state, or the state
 * governments), by boundary id (county GEOID, or state FIPS), kept once loaded: what tells "did not report"
 * from "no such government".
 */
const registries = new Map();
function registryOf(map) {
  const call = map ? `/api/v1/governments?state=${postalOf.get(map)}&type=county&limit=1000` : '/api/v1/governments?type=state&limit=1000';
  if (!registries.has(call)) {
    registries.set(call, getAll(call).then((r) => {
      return new Map(r.data.map((g) => [map ? `${g.fips_state}${g.fips_county}` : g.fips_state, g.canonical_govid]));
    }).catch((e) => { registries.delete(call); throw e; }));
  }
  return registries.get(call);
}

/** Every page of a rollup (the route caps a page at 1000 rows). */
async function rollupRows(call) {
  const all = await getAll(`${call}&limit=1000`);
  return { rows: all.data, meta: all.meta, suggestions: all.suggestions ?? [] };
}

/** The projection for a state's outline: Albers USA fits the 50 states and DC; other areas get Mercator. */
function projectionFor(outline, width, height) {
  const albers = d3.geoAlbersUsa();
  const c = d3.geoCentroid(outline);
  const p = albers(c) ? albers : d3.geoMercator();
  return p.fitSize([width, height], outline);
}

function hatch(svg) {
  const pat = svg.append('defs').append('pattern').attr('id', 'hatch').attr('patternUnits', 'userSpaceOnUse').attr('width', 6).attr('height', 6).attr('patternTransform', 'rotate(45)');
  pat.append('rect').attr('width', 6).attr('height', 6).attr('fill', '#eee');
  pat.append('line').attr('x1', 0).attr('y1', 0).attr('x2', 0).attr('y2', 6).attr('stroke', '#999').attr('stroke-width', 2);
}

function drawShapes(node, features, outline, values, { onClick, unit, listed, none, noRow }) {
  const width = widthOf(node), height = Math.round(Math.min(width * 0.62, 560));
  const path = d3.geoPath(projectionFor(outline, width, height));
  const known = [...values.values()].map((v) => v.value);
  const options = { type: 'quantile', scheme: 'blues', domain: known.length ? known : [0, 1], n: 5, label: `${unit} ($)`, tickFormat: (d) => moneyLong(d) };
  const color = Plot.scale({ color: options });
  const svg = d3.create('svg').attr('viewBox', `0 0 ${width} ${height}`).attr('width', width).attr('height', height).attr('class', 'map')
    // A group of buttons (each shape opens its unit), not an image: an img role would hide them from assistive technology.
    .attr('role', 'group').attr('aria-label', `Map: ${unit}`);
  hatch(svg);
  svg.append('g').selectAll('path').data(features.filter((f) => path(f))).join('path')
    .attr('d', path).attr('data-id', (f) => f.id)
    .attr('class', (f) => (values.has(f.id) ? 'unit reported' : listed.has(f.id) ? 'unit no-report' : 'unit no-government'))
    .attr('fill', (f) => (values.has(f.id) ? color.apply(values.get(f.id).value) : listed.has(f.id) ? 'url(#hatch)' : '#fff'))
    .on('click', (_, f) => onClick(f))
    // By keyboard too: each shape is a button (Tab to it, Enter or Space opens it).
    .attr('tabindex', 0).attr('role', 'button')
    .on('keydown', (e, f) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); onClick(f); } })
    .append('title').text((f) => (values.has(f.id) ? `${f.properties.name}: ${moneyLong(values.get(f.id).value)} (${unit})` : `${f.properties.name}: ${listed.has(f.id) ? noRow : none}`));
  const legend = el('div', { class: 'map-legend' }, known.length ? Plot.legend({ color: options, width: Math.min(360, width) }) : null,
    el('span', { class: 'swatch-item' }, el('i', { class: 'sw-hatch' }), noRow),
    el('span', { class: 'swatch-item' }, el('i', { class: 'sw-none' }), none));
  node.replaceChildren(legend, svg.node());
}

/**
 * Why a unit of the layer may have no row, in the legend's words and the note's: the source published the
 * category that year only in combined codes (the answer's recipe suggestions say so), the year is a survey
 * sample and the layer is counties (the Census surveys every local government only in years ending in 2 or 7),
 * or the government did not report.
 */
export function noRowWhy(view, category, year, meta, suggestions) {
  const sample = view.map && meta.is_census_year === false;
  if (suggestions.length && !sample) {
    const recipes = suggestions.map((x) => `${x.recipe_id} (${x.label})`).join(', ');
    return {
      label: `no ${category} row: combined codes`, counted: `have a ${category} row`,
      says: `In FY${year} the source published ${category} ${meta.n_units_reporting === 0 ? 'only' : 'for some governments only'} in codes that combine it with another function (aggregate codes, which a category's rows leave out): a hatched unit spent money on it that this map cannot show, not none. The API suggests recipes that carry it across the code change: ${recipes} (on a government's spending, recipe=...).`,
    };
  }
  if (sample) {
    // Both can hold: a county not in the sample, or one whose category the source put in combined codes.
    const combined = suggestions.length ? ` Some counties that were surveyed have no ${category} row because the source published it in codes combined with another function; the API suggests ${suggestions.map((x) => x.recipe_id).join(', ')} for them.` : '';
    return {
      label: 'no row: most likely not in this year\'s sample', counted: 'have a row',
      says: `FY${year} is a survey sample year: the Census surveys every local government only in years ending in 2 or 7, so most counties without a row were not in the sample, not counties that refused or spent nothing.${combined}`,
    };
  }
  return { label: 'did not report', counted: 'reported', says: '' };
}

/** Opens a clicked county: its id from the rollup row, or (not reporting) from the state's list of counties. */
function openCounty(f, govid, ctx) {
  if (govid) ctx.change({ govid, tab: 'history', focus: '' });
  else ctx.fail(`No county government is listed for ${f.properties.name} (${f.id}).`);
}

/** The map panel: view.map = a state FIPS for its counties, or empty for the nation's states. */
export async function drawMap(panel, view, ctx) {
  if (view.map && !postalOf.has(view.map)) view = { ...view, map: '' }; // no county boundaries or rollup for it: the nation
  const year = view.year || String(ctx.latestYear);
  const category = view.category || 'Police';
  const field = view.adjust === 'real' ? 'amt_per_capita_real' : 'amt_per_capita_nominal';
  const layer = view.map ? 'county' : 'state';
  const call = `/api/v1/rollups?layer=${layer}${view.map ? `&state=${postalOf.get(view.map)}` : ''}&category=${encodeURIComponent(category)}&per_capita=true&adjust=${view.adjust}&years=${year}`;
  const [{ rows, meta, suggestions }, t, listed] = await Promise.all([rollupRows(call), keptTopology(view.map ? `/explore/geo/counties-${view.map}.json` : '/explore/geo/states.json'), registryOf(view.map)]);
  if (ctx.stale()) return;
  const key = (r) => (view.map ? `${r.fips_state}${r.fips_county}` : r.fips_state);
  const values = new Map();
  for (const r of rows) {
    if (r[field] === null || r[field] === undefined) continue;
    const v = values.get(key(r)) ?? { value: 0, govid: r.canonical_govid, name: r.gov_name };
    v.value += r[field];
    values.set(key(r), v);
  }
  const features = topojson.feature(t, t.objects[view.map ? 'counties' : 'states']).features;
  const outline = view.map ? topojson.feature(t, t.objects.state) : topojson.feature(t, t.objects.states);
  const unit = `${category} spending per resident, FY${year}, ${view.adjust === 'real' ? `real ${meta.base_year ?? ''} dollars` : 'nominal dollars'}`;
  const where = view.map ? (t.objects.state.geometries?.[0]?.properties?.name ?? postalOf.get(view.map)) : 'the nation';
  // Whose spending: the rollup's layer is the governments of that layer alone (a state government's own
  // spending, not its counties', cities' or towns'), which a reader would not guess from a map of states.
  const whose = view.map ? 'County governments\' own' : 'State governments\' own';
  const within = view.map ? 'each county government, not the cities, towns or school systems inside it' : 'each state government, not the local governments inside it';
  panel.querySelector('.map-title').textContent = `${whose} ${unit}: ${where} (${within})`;
  const none = view.map ? 'no county government' : 'no state government';
  const why = noRowWhy(view, category, year, meta, suggestions);
  drawShapes(panel.querySelector('.chart'), features, outline, values, {
    unit, listed, none, noRow: why.label,
    onClick: (f) => (view.map ? openCounty(f, values.get(f.id)?.govid ?? listed.get(f.id), ctx) : postalOf.has(f.id) && ctx.change({ map: f.id })),
  });
  const units = view.map ? 'county governments' : 'state governments';
  const coverage = meta.n_units_expected > 0
    ? `${meta.n_units_reporting} of ${meta.n_units_expected} ${units} ${why.counted} in ${year}. ${why.says ? `${why.says} ` : ''}Hatched: ${why.label}, not zero; white: ${none}.`
    : `This state has no ${units} in the registry (their services are the state's or its towns'): nothing to map at this layer.`;
  panel.querySelector('.note').textContent = `${coverage} ${view.map ? 'Click a county to open it.' : 'Click a state for its counties.'}`;
  const links = panel.querySelector('.links');
  links.replaceChildren(el('a', { href: call, class: 'call' }, `map API call: ${call}`));
  if (view.map) links.prepend(el('button', { type: 'button', class: 'pick', on: { click: () => ctx.change({ map: '' }) } }, '← the nation'));
}
