// A small SVG chart: lines with optional interval bands, linear axes, no library.
export function chart(svg, series, o = {}) {
  const W = 900, H = 380, L = 80, R = 20, T = 20, B = 40;
  const pts = series.flatMap((s) => s.points);
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.setAttribute('width', W);
  svg.setAttribute('height', H);
  const el = (name, attrs, text) => {
    const e = document.createElementNS('http://www.w3.org/2000/svg', name);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    svg.appendChild(e);
    return e;
  };
  if (pts.length === 0) { el('text', { x: W / 2, y: H / 2, 'text-anchor': 'middle' }, o.empty ?? 'No data'); return; }
  const xs = [...new Set(pts.map((p) => p.x))].sort((a, b) => a - b);
  const ys = pts.flatMap((p) => [p.y, p.lo ?? p.y, p.hi ?? p.y]).filter((v) => v !== null && Number.isFinite(v));
  // Half a step of padding each side, so the first and last points sit off the axes.
  const pad = xs.length > 1 ? (xs[xs.length - 1] - xs[0]) / (2 * (xs.length - 1)) : 0.5;
  const x0 = xs[0] - pad, x1 = xs[xs.length - 1] + pad;
  const y0 = Math.min(0, ...ys), y1 = Math.max(...ys) * 1.05 || 1;
  const X = (x) => L + ((x - x0) / (x1 - x0)) * (W - L - R);
  const Y = (y) => H - B - ((y - y0) / (y1 - y0)) * (H - T - B);
  el('line', { x1: L, y1: H - B, x2: W - R, y2: H - B, stroke: '#889' });
  el('line', { x1: L, y1: T, x2: L, y2: H - B, stroke: '#889' });
  for (let k = 0; k <= 4; k++) {
    const v = y0 + ((y1 - y0) * k) / 4;
    el('line', { x1: L, y1: Y(v), x2: W - R, y2: Y(v), stroke: '#eef' });
    el('text', { x: L - 6, y: Y(v) + 4, 'text-anchor': 'end', 'font-size': 11 }, (o.format ?? String)(v));
  }
  const step = Math.max(1, Math.ceil(xs.length / 12));
  xs.forEach((x, i) => { if (i % step === 0 || i === xs.length - 1) el('text', { x: X(x), y: H - B + 16, 'text-anchor': 'middle', 'font-size': 11 }, (o.xLabel ?? String)(x)); });
  for (const s of series) {
    const p = s.points.filter((q) => q.y !== null && Number.isFinite(q.y)).sort((a, b) => a.x - b.x);
    for (const q of p) {
      if (q.lo !== undefined && q.hi !== undefined && q.lo !== null && q.hi !== null) {
        el('line', { x1: X(q.x), y1: Y(q.lo), x2: X(q.x), y2: Y(q.hi), stroke: s.color, 'stroke-width': 6, 'stroke-opacity': 0.25 });
      }
      el('circle', { cx: X(q.x), cy: Y(q.y), r: 3, fill: s.color, 'data-series': s.name });
    }
    if (p.length > 1) el('polyline', { points: p.map((q) => `${X(q.x)},${Y(q.y)}`).join(' '), fill: 'none', stroke: s.color, 'stroke-width': 2, 'data-series': s.name });
  }
}
