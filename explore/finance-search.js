// The finance page's adapter of the shared search box (search.js): governments by name, or a 12-digit id
// looked up directly; picking one opens it.
import { combobox } from '/explore/search.js';

/** Wires the box; `onPick(government)` gets a /governments row. */
export function governmentFinder({ input, list, note, onPick }) {
  combobox({ input, list, note }, {
    find: (q) => (q.length < 2 ? null : /^\d{12}$/.test(q) ? byId(q) : byName(q)),
    label: (g) => `${g.gov_name} (${g.type_label}, ${g.state ?? g.fips_state}) ${g.canonical_govid}`,
    key: (g) => ({ govid: g.canonical_govid }),
    pick: onPick,
    noMatch: (q) => `No government matches “${q}”.`,
  });
}

async function byName(q) {
  const r = await fetch(`/api/v1/governments?q=${encodeURIComponent(q)}&limit=20`);
  if (!r.ok) throw new Error(`HTTP ${r.status}`);
  return (await r.json()).data ?? [];
}

/** A typed id that is no government is a 4xx from the lookup: no match, not a failure. */
async function byId(q) {
  const r = await fetch(`/api/v1/governments/${q}`);
  if (r.status >= 400 && r.status < 500) return [];
  if (!r.ok) throw new Error(`HTTP ${r.status}`);
  return (await r.json()).data ?? [];
}
