// The whole view lives in the address (shared links and Back restore it):
// read on load and on popstate, written with pushState when a person changes
// something and replaceState when the page only fills in defaults.

const KEYS = ['leaid', 'state', 'model', 'year', 'race', 'sex', 'interval'];

export function readView() {
  const p = new URLSearchParams(location.search);
  const v = {};
  for (const k of KEYS) { const x = p.get(k); if (x) v[k] = x; }
  return v;
}

export function writeView(view, how) {
  const p = new URLSearchParams();
  for (const k of KEYS) if (view[k]) p.set(k, view[k]);
  const url = `${location.pathname}?${p}`;
  if (url === `${location.pathname}${location.search}`) return;
  if (how === 'push') history.pushState(null, '', url);
  else history.replaceState(null, '', url);
}
