// The whole view lives in the query string, so a shared link restores it and
// Back steps through the reader's changes. Only values that differ from the
// defaults are written, so links stay short.

export const TABS = ['history', 'breakdown', 'peers', 'map'];
export const DEFAULTS = Object.freeze({
  govid: '', tab: 'history', adjust: 'nominal', scale: 'total',
  year: '', category: 'Police', focus: '', subtype: 'operations', map: '', pair: 'total',
});

/** The view a query string describes; unknown or malformed values fall back to the defaults. */
export function readView(search = location.search) {
  const p = new URLSearchParams(search);
  const v = { ...DEFAULTS };
  for (const k of Object.keys(DEFAULTS)) if (p.has(k)) v[k] = p.get(k);
  if (!/^\d{12}$/.test(v.govid)) v.govid = '';
  if (!TABS.includes(v.tab)) v.tab = DEFAULTS.tab;
  if (!['nominal', 'real'].includes(v.adjust)) v.adjust = DEFAULTS.adjust;
  if (!['total', 'per_capita'].includes(v.scale)) v.scale = DEFAULTS.scale;
  if (!/^\d{4}$/.test(v.year)) v.year = '';
  if (!/^\d{2}$/.test(v.map)) v.map = '';
  if (!['total', 'general', 'aid'].includes(v.pair)) v.pair = DEFAULTS.pair;
  return v;
}

export function queryOf(view) {
  const p = new URLSearchParams();
  for (const [k, d] of Object.entries(DEFAULTS)) if (view[k] && view[k] !== d) p.set(k, view[k]);
  const s = p.toString();
  return s ? `?${s}` : location.pathname;
}

/** A new history entry for a user's change (replace=true for corrections the reader did not make). */
export function writeView(view, replace = false) {
  const q = queryOf(view);
  const now = location.search || location.pathname;
  if (q === now) return;
  if (replace) history.replaceState(null, '', q);
  else history.pushState(null, '', q);
}
