// The district finder: a combobox over /api/v1/districts. A name is searched
// as typed, in every state (the state select always holds a state, for the
// map, and should not hide a district typed by name); an empty box lists the
// chosen state's districts; seven digits are looked up as a leaid in the
// state its first two digits name. ArrowUp/Down move, Enter picks, Escape closes.

import { calls, keptRows, rows } from '/explore/arrests-api.js';
import { CODE_BY_FIPS } from '/explore/arrests-states.js';

/** Wires the box; `state()` is the state select's value, `onPick(district)` gets a districts row. */
export function districtFinder({ input, list, note, state, onPick }) {
  let found = [], active = -1, asked = 0, timer = 0;

  async function lookup(q) {
    if (/^\d{7}$/.test(q)) {
      const st = CODE_BY_FIPS.get(q.slice(0, 2));
      return st ? (await keptRows(calls.districtsOf(st))).filter((d) => d.leaid === q) : [];
    }
    if (q === '') return state() ? keptRows(calls.districtsOf(state())) : [];
    return rows(calls.search(q));
  }

  async function search() {
    const q = input.value.trim();
    const mine = ++asked; // answers can overtake each other: only the latest may paint
    let got, failed = null;
    try { got = await lookup(q); } catch (e) { got = []; failed = e; }
    if (mine !== asked) return;
    found = got;
    active = -1; // ArrowDown moves to the first match
    paint();
    // A failed search says so: it is not the same as no district matching.
    note.textContent = failed ? `The search could not be run: ${failed.message}` : q !== '' && found.length === 0 ? `No district matches “${q}”.` : '';
  }

  function paint() {
    list.replaceChildren(...found.map((d, i) => {
      const li = document.createElement('li');
      li.id = `district-${d.leaid}`;
      li.setAttribute('role', 'option');
      li.setAttribute('aria-selected', String(i === active));
      li.dataset.leaid = d.leaid;
      li.textContent = `${d.lea_name} · ${d.state} · ${d.leaid}`;
      // mousedown, not click: the input's blur would close the list before a click lands
      li.addEventListener('mousedown', (e) => { e.preventDefault(); pick(d); });
      return li;
    }));
    list.hidden = found.length === 0;
    input.setAttribute('aria-expanded', String(!list.hidden));
    if (active >= 0) { input.setAttribute('aria-activedescendant', `district-${found[active].leaid}`); list.children[active]?.scrollIntoView({ block: 'nearest' }); }
    else input.removeAttribute('aria-activedescendant');
  }

  function close() { found = []; active = -1; paint(); }
  function pick(d) { input.value = ''; note.textContent = ''; close(); onPick(d); }

  // A new text makes the shown matches stale: they go at once, so no key acts on them.
  input.addEventListener('input', () => { clearTimeout(timer); ++asked; found = []; active = -1; paint(); timer = setTimeout(search, 120); });
  // An empty box, entered or clicked, lists the chosen state's districts.
  const listState = () => { if (input.value.trim() === '' && state() && found.length === 0) search(); };
  input.addEventListener('focus', listState);
  input.addEventListener('click', listState);
  input.addEventListener('blur', () => { ++asked; close(); });
  input.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      if (found.length === 0) { clearTimeout(timer); search().then(() => { if (found.length > 0) { active = 0; paint(); } }); return; }
      active = (active + (e.key === 'ArrowDown' ? 1 : -1) + found.length) % found.length;
      paint();
    } else if (e.key === 'Enter') {
      e.preventDefault();
      if (active >= 0 && found[active]) { pick(found[active]); return; }
      // Enter before moving: a single match (a typed leaid, a unique name) is picked at once.
      clearTimeout(timer);
      search().then(() => { if (found.length === 1) pick(found[0]); });
    } else if (e.key === 'Escape') {
      ++asked;
      close();
    }
  });
  return { refresh: () => { if (document.activeElement === input) search(); } };
}
