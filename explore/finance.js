import { chart } from '/explore/chart.js';
import { searchBox } from '/explore/search.js';

const $ = (id) => document.getElementById(id);
const money = (v) => (Math.abs(v) >= 1e9 ? `${(v / 1e9).toFixed(1)}B` : Math.abs(v) >= 1e6 ? `${(v / 1e6).toFixed(1)}M` : Math.abs(v) >= 1e3 ? `${(v / 1e3).toFixed(1)}k` : v.toFixed(v < 10 ? 2 : 0));
let current = null;
// Draws overlap when the user changes two settings quickly: only the latest may paint (as in search.js).
let drawing = 0;

function series(rows, field) {
  const byYear = new Map();
  for (const r of rows) {
    const v = r[field];
    if (v === null || v === undefined) continue;
    byYear.set(r.year, (byYear.get(r.year) ?? 0) + v);
  }
  return [...byYear].map(([x, y]) => ({ x, y }));
}

async function draw() {
  if (!current) return;
  const adjust = $('adjust').value, perCapita = $('scale').value === 'per_capita';
  const q = `category=All%20Categories&adjust=${adjust}&per_capita=${perCapita}`;
  const spendingCall = `/api/v1/governments/${current.canonical_govid}/spending?${q}`;
  const revenueCall = `/api/v1/governments/${current.canonical_govid}/revenue?${q}`;
  const mine = ++drawing;
  const [s, r] = await Promise.all([spendingCall, revenueCall].map(async (u) => (await fetch(u)).json()));
  if (mine !== drawing) return; // a newer draw is on its way
  const field = perCapita ? (adjust === 'real' ? 'amt_per_capita_real' : 'amt_per_capita_nominal') : adjust === 'real' ? 'amt_real' : 'amt_nominal';
  $('title').textContent = `${current.gov_name} (${current.canonical_govid})`;
  chart($('chart'), [
    { name: 'spending', color: '#d1495b', points: series(s.data ?? [], field) },
    { name: 'revenue', color: '#2e86ab', points: series(r.data ?? [], field) },
  ], { format: money, empty: 'No spending or revenue rows in the loaded years' });
  // The flat route answers the latest year unless told: ask for the years the chart shows.
  const years = (s.data ?? []).map((row) => row.year);
  const span = years.length ? `&years=${Math.min(...years)}-${Math.max(...years)}` : '';
  const csv = `/api/v1/spending?govid=${current.canonical_govid}&category=All%20Categories&adjust=${adjust}&per_capita=${perCapita}${span}&format=csv`;
  $('links').innerHTML = '';
  for (const [label, href] of [['spending API call', spendingCall], ['revenue API call', revenueCall], ['spending as CSV', csv]]) {
    const a = document.createElement('a');
    a.href = href;
    a.textContent = `${label}: ${href}`;
    $('links').appendChild(a);
  }
}

searchBox({
  input: $('q'), list: $('results'),
  url: (q) => `/api/v1/governments?q=${q}&limit=20`,
  label: (g) => `${g.gov_name} (${g.type_label}, ${g.state ?? g.fips_state}) ${g.canonical_govid}`,
  key: (g) => ({ govid: g.canonical_govid }),
  onPick: (g) => { current = g; draw(); },
});
$('adjust').addEventListener('change', draw);
$('scale').addEventListener('change', draw);
