// The district chart, drawn with Observable Plot: for the chosen race and sex,
// the district's posterior median per school year (a dot) and its credible
// interval (a rule from lower to upper), with the state's estimate beside it
// as a second series. Rates are shown per 1,000 students; the y domain starts
// at 0 and the interval is drawn whatever the median, so a median of 0 still
// shows how high the estimate may be.

import { PER_1000, groupWords, per1000, swatch } from '/explore/arrests-labels.js';

export const DISTRICT_COLOUR = '#6a3d9a';
export const STATE_COLOUR = '#e08214';

const k = (v) => (v === null || v === undefined ? null : v * 1000);

/** Draws into `box` (emptied first); `years` are the model's school years, `year` the one chosen. */
export function drawDistrictChart(box, { district, state, years, year, race, sex, interval, rows, stateRows }) {
  const mine = rows.filter((r) => r.race === race && r.sex === sex);
  const theirs = stateRows.filter((r) => r.race === race && r.sex === sex);
  const group = groupWords(race, sex);
  const tip = (who) => (r) => `${who}, ${group}, ${r.year}: ${per1000(r.rate_median)} ${PER_1000} (${interval}% interval ${per1000(r.rate_lower)} to ${per1000(r.rate_upper)})`;
  const bounded = (r) => r.rate_lower !== null && r.rate_upper !== null;
  const median = (r) => r.rate_median !== null;
  const width = Math.max(280, box.clientWidth);
  // Two series side by side at each year: the district left, the state right.
  const gap = Math.min(14, width / (years.length * 8));
  const chosen = mine.filter((r) => r.year === year && median(r));
  const plot = Plot.plot({
    width,
    height: Math.round(Math.min(420, Math.max(260, width * 0.5))),
    marginLeft: 56,
    x: { domain: years, type: 'point', padding: 0.6, label: 'School year' },
    y: { domain: [0, Math.max(1e-9, ...[...mine, ...theirs].map((r) => k(r.rate_upper ?? r.rate_median) ?? 0)) * 1.08], nice: true, grid: true, label: `↑ Arrests ${PER_1000}` },
    marks: [
      Plot.ruleY([0]),
      Plot.ruleX(theirs.filter(bounded), { x: 'year', y1: (r) => k(r.rate_lower), y2: (r) => k(r.rate_upper), dx: gap, stroke: STATE_COLOUR, strokeWidth: 3, strokeOpacity: 0.55, className: 'state-interval', title: tip(`${state} (state)`) }),
      Plot.ruleX(mine.filter(bounded), { x: 'year', y1: (r) => k(r.rate_lower), y2: (r) => k(r.rate_upper), dx: -gap, stroke: DISTRICT_COLOUR, strokeWidth: 3, strokeOpacity: 0.55, className: 'district-interval', title: tip(district) }),
      Plot.dot(theirs.filter(median), { x: 'year', y: (r) => k(r.rate_median), dx: gap, symbol: 'diamond', r: 5, fill: STATE_COLOUR, stroke: 'white', className: 'state-median', title: tip(`${state} (state)`) }),
      Plot.dot(mine.filter(median), { x: 'year', y: (r) => k(r.rate_median), dx: -gap, r: 5, fill: DISTRICT_COLOUR, stroke: 'white', className: 'district-median', title: tip(district) }),
      // the school year the map shows, ringed
      Plot.dot(chosen, { x: 'year', y: (r) => k(r.rate_median), dx: -gap, r: 9, stroke: '#111', strokeWidth: 1.5, className: 'chosen-year' }),
    ],
  });
  plot.setAttribute('aria-label', `Arrests ${PER_1000}, ${group}, ${district} and ${state}, by school year`);
  box.replaceChildren(plot);
  return { dots: mine.filter(median).length, intervals: mine.filter(bounded).length };
}

/**
 * The district panel (arrests.js's PANELS): its title, legend and chart for the view, from the rows the paint
 * fetched; before a pick (or for a leaid with no estimates) a title that says so and no chart.
 */
export function drawDistrictPanel(panel, v, { years, stateName, group, districtRows, stateRows }) {
  const $ = (id) => panel.querySelector(`#${id}`);
  const name = districtRows[0]?.lea_name;
  if (v.leaid && name) {
    $('title').textContent = `${name} (${v.leaid}), ${stateName}`;
    $('chart-legend').replaceChildren(swatch(DISTRICT_COLOUR, '', `${name}: ${group}`), swatch(STATE_COLOUR, 'diamond', `${stateName} (state): ${group}`), swatch('#999', '', `bars: ${v.interval}% interval; ring: ${v.year}`));
    drawDistrictChart($('chart'), { district: name, state: stateName, years, year: v.year, race: v.race, sex: v.sex, interval: v.interval, rows: districtRows, stateRows });
  } else {
    $('title').textContent = v.leaid ? `No estimates for district ${v.leaid}` : 'Find a district by name, state or leaid';
    $('chart-legend').replaceChildren();
    $('chart').innerHTML = '<p class="note">Pick a district to see its estimates by school year.</p>';
  }
}
