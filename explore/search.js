// The search box of both explorer pages: as the user types, ask the API for
// matches and list them as a listbox driven by the keyboard (ArrowDown/Up move
// the active option, Enter picks, Escape closes); a newer search supersedes a
// slower older one. `byId` (optional) turns a typed id into a direct lookup.
let boxes = 0;

export function searchBox({ input, list, url, label, key, onPick, byId, noMatch = (q) => `No match for “${q}”` }) {
  const prefix = `opt${++boxes}-`;
  let seq = 0, timer = 0, rows = [], active = -1;
  list.setAttribute('role', 'listbox');
  input.setAttribute('role', 'combobox');
  input.setAttribute('aria-autocomplete', 'list');
  input.setAttribute('aria-controls', list.id);
  input.setAttribute('aria-expanded', 'false');

  // A note beside the list, not in it (a listbox holds options only): says when nothing matches or the search failed.
  const note = document.createElement('p');
  note.className = 'search-note';
  note.setAttribute('role', 'status');
  note.setAttribute('aria-live', 'polite');
  list.after(note);
  if (!list.hasAttribute('aria-label')) list.setAttribute('aria-label', 'matches');

  function close() {
    ++seq; // an answer still on its way is for a search no longer shown
    list.replaceChildren();
    rows = []; active = -1;
    input.setAttribute('aria-expanded', 'false');
    input.removeAttribute('aria-activedescendant');
  }
  function setActive(i) {
    active = i;
    [...list.children].forEach((li, j) => li.setAttribute('aria-selected', String(j === i)));
    if (i >= 0) { input.setAttribute('aria-activedescendant', `${prefix}${i}`); list.children[i]?.scrollIntoView({ block: 'nearest' }); } else input.removeAttribute('aria-activedescendant');
  }
  function pick(row) { clearTimeout(timer); close(); note.textContent = ''; input.value = ''; onPick(row); }
  function show(found, q) {
    list.replaceChildren();
    rows = found; active = -1;
    note.textContent = found.length ? '' : noMatch(q);
    input.setAttribute('aria-expanded', String(found.length > 0));
    if (!found.length) return;
    found.forEach((row, i) => {
      const li = document.createElement('li');
      li.id = `${prefix}${i}`;
      li.setAttribute('role', 'option');
      li.setAttribute('aria-selected', 'false');
      li.textContent = label(row);
      Object.assign(li.dataset, key(row));
      // mousedown, not click: the input's blur would close the list before a click lands.
      li.addEventListener('mousedown', (e) => { e.preventDefault(); pick(row); });
      list.appendChild(li);
    });
  }
  async function search() {
    const q = input.value.trim();
    if (q.length < 2) { close(); note.textContent = ''; return; }
    const mine = ++seq;
    const direct = byId?.(q);
    let body;
    try {
      const r = await fetch(direct ?? url(encodeURIComponent(q)));
      // A typed id that is no government is a 4xx from the lookup: no match, not a failure.
      if (!r.ok && !(direct && r.status < 500)) throw new Error(`HTTP ${r.status}`);
      body = r.ok ? await r.json() : { data: [] };
    } catch (e) {
      if (mine !== seq) return;
      close();
      note.textContent = `The search could not be run (${e.message}); try again.`;
      return;
    }
    if (mine !== seq) return; // a newer search is on its way
    show(body.data ?? [], q);
  }
  input.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(search, 150); });
  input.addEventListener('keydown', (e) => {
    if (e.key === 'ArrowDown' && rows.length) { e.preventDefault(); setActive((active + 1) % rows.length); }
    else if (e.key === 'ArrowUp' && rows.length) { e.preventDefault(); setActive(active <= 0 ? rows.length - 1 : active - 1); }
    else if (e.key === 'Enter' && active >= 0) { e.preventDefault(); pick(rows[active]); }
    else if (e.key === 'Escape') close();
  });
  input.addEventListener('blur', () => setTimeout(close, 100));
}
