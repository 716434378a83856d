// The school page's adapter of the shared search box (search.js): a combobox over /api/v1/districts. A name
// is searched as typed, in every state (the state select always holds a state, for the map, and should not
// hide a district typed by name); an empty box lists the chosen state's districts; seven digits are looked up
// as a leaid in the state its first two digits name. Picking one draws it.

import { calls, keptRows, rows } from '/explore/arrests-api.js';
import { combobox } from '/explore/search.js';
import { CODE_BY_FIPS } from '/explore/arrests-states.js';

/** Wires the box; `state()` is the state select's value, `onPick(district)` gets a districts row. */
export function districtFinder({ input, list, note, state, onPick }) {
  combobox({ input, list, note }, {
    find: (q) => lookup(q, state()),
    label: (d) => `${d.lea_name} · ${d.state} · ${d.leaid}`,
    key: (d) => ({ leaid: d.leaid }),
    pick: onPick,
    noMatch: (q) => `No district matches “${q}”.`,
  });
}

async function lookup(q, st) {
  if (/^\d{7}$/.test(q)) {
    const of = CODE_BY_FIPS.get(q.slice(0, 2));
    return of ? (await keptRows(calls.districtsOf(of))).filter((d) => d.leaid === q) : [];
  }
  if (q === '') return st ? keptRows(calls.districtsOf(st)) : [];
  return rows(calls.search(q));
}
