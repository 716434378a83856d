import { chart } from '/explore/chart.js';
import { searchBox } from '/explore/search.js';

const $ = (id) => document.getElementById(id);
let current = null, rows = [], YEARS = [];
// Loads overlap when the user changes model and interval quickly: only the latest may paint (as in search.js).
let loading = 0;

// Models as the service lists them; the first fitted in every school year is the default view (the service's default covers one year).
const models = fetch('/api/v1/models').then((r) => r.json()).then((r) => {
  const list = r.data ?? [];
  YEARS = [...new Set(list.flatMap((m) => m.years_in_mirror ?? m.years))].sort();
  const all = list.find((m) => YEARS.every((y) => (m.years_in_mirror ?? m.years).includes(y)));
  fill($('model'), list.map((m) => m.model));
  if (all) $('model').value = all.model;
  return list;
});

function fill(select, values) {
  const keep = select.value;
  select.innerHTML = '';
  for (const v of values) { const o = document.createElement('option'); o.textContent = v; select.appendChild(o); }
  if (values.includes(keep)) select.value = keep;
}

async function load() {
  if (!current) return;
  await models;
  const call = `/api/v1/estimates/${current.leaid}?model=${$('model').value}&interval=${$('interval').value}`;
  const mine = ++loading;
  const answer = (await (await fetch(call)).json()).data ?? [];
  if (mine !== loading) return; // a newer load is on its way
  rows = answer;
  const first = $('race').options.length === 0;
  fill($('race'), [...new Set(rows.map((r) => r.race))]);
  fill($('sex'), [...new Set(rows.map((r) => r.sex))]);
  // First view: the district's largest student group, where the estimate says the most.
  const largest = rows.reduce((a, r) => ((r.stu_enroll ?? 0) > (a?.stu_enroll ?? -1) ? r : a), null);
  if (first && largest) { $('race').value = largest.race; $('sex').value = largest.sex; }
  $('title').textContent = `${current.lea_name} (${current.leaid}), model ${rows[0]?.model ?? ''}`;
  $('links').innerHTML = '';
  const a = document.createElement('a');
  a.href = call;
  a.textContent = `API call: ${call}`;
  $('links').appendChild(a);
  draw();
}

function draw() {
  const sel = rows.filter((r) => r.race === $('race').value && r.sex === $('sex').value);
  chart($('chart'), [{
    name: 'rate', color: '#6a4c93',
    points: sel.filter((r) => YEARS.includes(r.year)).map((r) => ({ x: YEARS.indexOf(r.year), y: r.rate_median, lo: r.rate_lower, hi: r.rate_upper })),
  }], { format: (v) => v.toFixed(3), xLabel: (i) => YEARS[i] ?? '', empty: 'No estimates for this group' });
}

searchBox({
  input: $('q'), list: $('results'),
  url: (q) => `/api/v1/districts?q=${q}&limit=20`,
  label: (d) => `${d.lea_name} (${d.state}) ${d.leaid}`,
  key: (d) => ({ leaid: d.leaid }),
  onPick: (d) => { current = d; load(); },
});
$('race').addEventListener('change', draw);
$('sex').addEventListener('change', draw);
$('interval').addEventListener('change', load);
$('model').addEventListener('change', load);
