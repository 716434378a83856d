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

  function close() {
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
  function pick(row) { close(); input.value = ''; onPick(row); }
  function show(found, q) {
    list.replaceChildren();
    rows = found; active = -1;
    input.setAttribute('aria-expanded', 'true');
    if (!found.length) {
      const li = document.createElement('li');
      li.className = 'empty';
      li.setAttribute('role', 'status');
      li.textContent = noMatch(q);
      list.appendChild(li);
      return;
    }
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
    if (q.length < 2) { close(); return; }
    const mine = ++seq;
    const direct = byId?.(q);
    const r = await fetch(direct ?? url(encodeURIComponent(q)));
    const body = r.ok ? await r.json() : { data: [] };
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
