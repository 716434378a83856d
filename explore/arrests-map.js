// The state map, drawn with Observable Plot: the state's outline and each of
// its districts as a dot at its lat/lon, coloured by the chosen estimate (per
// 1,000 students) with a colour legend. The projection is fitted to the
// outline and the dots together, so a district recorded outside its state's
// outline (a real mirror's error) is still drawn. A click on a dot picks that district.

import { PER_1000, per1000, swatch } from '/explore/arrests-labels.js';

/** Draws into `box`; `districts` are the state's rows of /districts, `estimates` its rows of /estimates for one group and year. */
export function drawStateMap(box, { outline, districts, estimates, leaid, title, onPick }) {
  const byId = new Map(estimates.map((r) => [r.leaid, r]));
  const placed = districts.filter((d) => d.lat !== null && d.lon !== null);
  const rated = placed.filter((d) => byId.get(d.leaid)?.rate_median != null);
  const unrated = placed.filter((d) => byId.get(d.leaid)?.rate_median == null);
  const value = (d) => byId.get(d.leaid).rate_median * 1000;
  const tip = (d) => {
    const r = byId.get(d.leaid);
    return `${d.lea_name} (${d.leaid}): ${r?.rate_median == null ? 'no estimate for this group' : `${per1000(r.rate_median)} ${PER_1000} (${r.interval}% interval ${per1000(r.rate_lower)} to ${per1000(r.rate_upper)})`}`;
  };
  const width = Math.max(280, box.clientWidth);
  // The outline is a FeatureCollection (topojson.feature of a collection): its features go in as they are, since
  // d3-geo reads a FeatureCollection's members as Features and would skip a nested collection.
  const domain = { type: 'FeatureCollection', features: [...(outline.features ?? [outline]), { type: 'Feature', properties: {}, geometry: { type: 'MultiPoint', coordinates: placed.map((d) => [d.lon, d.lat]) } }] };
  const picked = placed.filter((d) => d.leaid === leaid);
  const figure = Plot.plot({
    width,
    height: Math.round(Math.min(520, width * 0.9)),
    margin: 12,
    projection: { type: 'mercator', domain, inset: 10 },
    // From 0 to the highest median; when every median is 0 the domain stays [0, 1] so 0 is the palest colour, not the middle one.
    color: { type: 'linear', scheme: 'YlOrRd', domain: [0, Math.max(...rated.map(value), 0) || 1], legend: rated.length > 0, label: `Arrests ${PER_1000}` },
    marks: [
      Plot.geo(outline, { fill: '#f1f3f6', stroke: '#8a94a6' }),
      Plot.dot(unrated, { x: 'lon', y: 'lat', r: 5, fill: 'white', stroke: '#8a94a6', className: 'map-dot-none', title: tip }),
      Plot.dot(rated, { x: 'lon', y: 'lat', r: 6, fill: value, stroke: '#333', strokeWidth: 0.6, className: 'map-dot', title: tip }),
      Plot.dot(picked, { x: 'lon', y: 'lat', r: 11, stroke: '#111', strokeWidth: 2, className: 'map-picked' }),
    ],
  });
  figure.setAttribute('aria-label', title);
  // The dots are buttons: a group, not an image, or assistive technology would not reach them.
  figure.setAttribute('role', 'group');
  // Plot binds each circle to its row's index in the mark's data: that index finds the district clicked.
  for (const [cls, data] of [['map-dot', rated], ['map-dot-none', unrated]]) {
    d3.select(figure).selectAll(`g.${cls} circle`)
      .attr('tabindex', 0).attr('role', 'button').style('cursor', 'pointer')
      .on('click', (e, i) => onPick(data[i]))
      .on('keydown', (e, i) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); onPick(data[i]); } });
  }
  box.replaceChildren(figure);
  return { dots: placed.length };
}

/** The map panel (arrests.js's PANELS): the state's districts coloured for the view's group and year; a click on a dot calls `pick`. */
export function drawMapPanel(panel, v, { stateName, group, list, estimates, outline, pick }) {
  panel.querySelector('#map-title').textContent = `${stateName}: ${group}, ${v.year}, per 1,000 students`;
  panel.querySelector('#map-legend').replaceChildren(swatch('#fff', 'hollow', 'no estimate for this group'), ...(v.leaid ? [swatch('#fff', 'ring', 'the district picked')] : []));
  drawStateMap(panel.querySelector('#map'), { outline, districts: list, estimates, leaid: v.leaid, title: `Districts of ${stateName} coloured by arrests ${PER_1000}`, onPick: pick });
}
