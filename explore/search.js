// The search box of both explorers: one editable combobox with list
// autocomplete (WAI-ARIA 1.2 combobox pattern). The input carries
// role=combobox, aria-expanded, aria-controls and aria-activedescendant; the
// list is a listbox of options; focus stays in the input throughout. A page
// gives an adapter (finance-search.js, arrests-search.js): what to fetch for
// a text, how to label and key an option, what picking one does.
//
// Keys: ArrowDown/ArrowUp move the active option (wrapping), and open the
// list on the first or last match when it is closed; Enter picks the active
// option, or with none active the only match; Escape closes the list, and a
// second Escape clears the box; Home/End move the caret to the start/end of
// the text. A click on an option picks it.

/** How long typing must pause before a search goes out (ms). */
const DEBOUNCE_MS = 150;

/**
 * Wires `input` (the text box), `list` (an empty <ul>) and `note` (a status line beside the list: a listbox
 * holds options only). The adapter:
 *   find(text) -> Promise<rows> | null   the matches of a text; null: no search for it (too short)
 *   label(row) -> string                 the option's text
 *   key(row) -> { name: value }          data-* attributes of the option (tests and styles read them)
 *   pick(row)                            what choosing it does
 *   noMatch(text) -> string              the note when nothing matches
 */
export function combobox({ input, list, note }, { find, label, key, pick, noMatch }) {
  let rows = [], active = -1, asked = 0, timer = 0;
  let waiting = false; // a search typed for is on its way (debounced or fetching): Escape drops it before it clears
  const optionId = (i) => `${list.id}-option-${i}`;
  input.setAttribute('role', 'combobox');
  input.setAttribute('aria-autocomplete', 'list');
  input.setAttribute('aria-controls', list.id);
  input.setAttribute('aria-expanded', 'false');
  list.setAttribute('role', 'listbox');
  list.hidden = true;
  note.setAttribute('role', 'status');
  note.setAttribute('aria-live', 'polite');

  function setActive(i) {
    active = i;
    [...list.children].forEach((li, j) => li.setAttribute('aria-selected', String(j === i)));
    if (i < 0) { input.removeAttribute('aria-activedescendant'); return; }
    input.setAttribute('aria-activedescendant', optionId(i));
    list.children[i].scrollIntoView({ block: 'nearest' });
  }

  function show(found) {
    rows = found;
    list.replaceChildren(...found.map((row, i) => {
      const li = document.createElement('li');
      li.id = optionId(i);
      li.setAttribute('role', 'option');
      li.setAttribute('aria-selected', 'false');
      li.textContent = label(row);
      Object.assign(li.dataset, key(row));
      // The press keeps focus in the input (no blur to close the list under the pointer); the click picks.
      li.addEventListener('mousedown', (e) => e.preventDefault());
      li.addEventListener('click', () => choose(row));
      return li;
    }));
    list.hidden = found.length === 0;
    input.setAttribute('aria-expanded', String(found.length > 0));
    setActive(-1);
  }

  /** Closes the list; an answer still on its way is for a search no longer shown. */
  function close() {
    clearTimeout(timer);
    waiting = false;
    ++asked;
    show([]);
  }

  function choose(row) {
    close();
    input.value = '';
    note.textContent = '';
    pick(row);
  }

  /** Searches the box's text now; resolves once the answer is shown, or is stale (a newer search or a close). */
  async function search() {
    clearTimeout(timer);
    const q = input.value.trim();
    const mine = ++asked; // answers can overtake each other: only the latest may paint
    const asking = find(q);
    if (asking === null) { waiting = false; show([]); note.textContent = ''; return false; }
    let found, failed = null;
    try { found = await asking; } catch (e) { found = []; failed = e; }
    if (mine !== asked) return false;
    waiting = false;
    show(found);
    // A failed search says so: it is not the same as nothing matching.
    note.textContent = failed ? `The search could not be run: ${failed.message}` : q !== '' && found.length === 0 ? noMatch(q) : '';
    return true;
  }

  // A new text makes the shown matches stale: they go at once, so no key acts on them.
  input.addEventListener('input', () => { close(); waiting = true; timer = setTimeout(search, DEBOUNCE_MS); });
  // Entering or clicking the box shows the matches of its text (an adapter may list something for an empty box).
  const reopen = () => { if (list.hidden) search(); };
  input.addEventListener('focus', reopen);
  input.addEventListener('click', reopen);
  input.addEventListener('blur', close);
  input.addEventListener('keydown', (e) => {
    const open = !list.hidden;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const down = e.key === 'ArrowDown';
      if (open) { setActive((active + (down ? 1 : active < 0 ? 0 : -1) + rows.length) % rows.length); return; }
      search().then((shown) => { if (shown && rows.length) setActive(down ? 0 : rows.length - 1); });
    } else if (e.key === 'Enter') {
      e.preventDefault();
      if (open && active >= 0) { choose(rows[active]); return; }
      // Enter before moving: a single match (a typed id, a unique name) is picked at once.
      if (open) { if (rows.length === 1) choose(rows[0]); return; }
      search().then((shown) => { if (shown && rows.length === 1) choose(rows[0]); });
    } else if (e.key === 'Escape') {
      // The first Escape closes the list (and drops a search on its way); with the list closed, it clears the box.
      e.preventDefault();
      const closing = open || waiting;
      close();
      if (closing) return;
      input.value = '';
      note.textContent = '';
    } else if (e.key === 'Home' || e.key === 'End') {
      e.preventDefault();
      setActive(-1);
      const at = e.key === 'Home' ? 0 : input.value.length;
      input.setSelectionRange(at, at);
    }
  });
}
