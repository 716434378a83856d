// The search box of both explorer pages: as the user types, ask the API for
// matches and list them; a newer search supersedes a slower older one.
export function searchBox({ input, list, url, label, key, onPick }) {
  let seq = 0, timer = 0;
  async function search() {
    const q = input.value.trim();
    list.innerHTML = '';
    if (q.length < 2) return;
    const mine = ++seq;
    const r = await (await fetch(url(encodeURIComponent(q)))).json();
    if (mine !== seq) return; // a newer search is on its way
    for (const row of r.data ?? []) {
      const li = document.createElement('li');
      li.textContent = label(row);
      Object.assign(li.dataset, key(row));
      li.addEventListener('click', () => onPick(row));
      list.appendChild(li);
    }
  }
  input.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(search, 150); });
}
