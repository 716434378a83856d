// The data dictionary for people: the rows /api/v1/data-dictionary answers
// as JSON, as one page with a section per kind (sections and every entry
// have anchors to link to) and the error catalog as a table.

import type { DictionaryRow } from '../docs-text.js';
import { esc, htmlPage } from './html.js';

const SECTIONS: [section: string, heading: string, intro: string][] = [
  ['envelope', 'Envelope', 'Every JSON answer is this object.'],
  ['meta', 'Meta', 'Fields of meta, beyond those a route adds of its own.'],
  ['parameter', 'Parameters', 'Query and path parameters, with what they allow and their defaults, and the routes that take them.'],
  ['row', 'Row fields', 'The fields of the rows in data (and the columns of CSV, Arrow and Parquet answers).'],
  ['decision', 'Decisions', 'What this service decided where the specification is silent.'],
  ['caveat', 'Caveats', 'Breaks and cautions in the data itself.'],
  ['error', 'Errors', 'The error catalog: each code, its HTTP status and when it is answered. The code is in meta.error_code of the error envelope.'],
];

const slug = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'entry';

const routesText = (rs: string[]): string => (rs.length ? `<p class="routes">Routes: ${rs.map((r) => `<code>${esc(r)}</code>`).join(' ')}</p>` : '');

export function dictionaryHtml(title: string, service: string, synthetic: boolean, rows: DictionaryRow[]): string {
  const seen = new Set<string>();
  const anchor = (section: string, name: string): string => {
    let id = `${section}-${slug(name)}`;
    for (let k = 2; seen.has(id); k++) id = `${section}-${slug(name)}-${k}`;
    seen.add(id);
    return id;
  };
  const present = SECTIONS.filter(([s]) => rows.some((r) => r.section === s));
  // The contents: every section, kept in view on a wide screen (the page is long: some 25,000 px), and under each
  // section heading an index of its entries (folded), so any entry is two clicks from anywhere.
  const toc = present.map(([s, h]) => `<li><a href="#${s}">${esc(h)}</a> <span class="count">${rows.filter((r) => r.section === s).length}</span></li>`).join('');
  const body = present.map(([s, heading, intro]) => {
    const mine = rows.filter((r) => r.section === s);
    const ids = mine.map((r) => anchor(s, r.name));
    const index = `<details class="index"><summary>Index of the ${mine.length} ${esc(heading.toLowerCase())}</summary><ul>${mine.map((r, i) =>
      `<li><a href="#${ids[i]}">${esc(r.name)}</a></li>`).join('')}</ul></details>`;
    // The error table scrolls sideways in its own box on a narrow screen: a code is one unbroken word.
    const entries = s === 'error'
      ? `<div class="table-scroll"><table class="errors"><thead><tr><th>Code</th><th>HTTP status</th><th>When</th></tr></thead><tbody>${mine.map((r, i) =>
        `<tr id="${ids[i]}"><td><code>${esc(r.name)}</code></td><td>${esc(r.type.replace(/^HTTP /, ''))}</td><td>${esc(r.description)}</td></tr>`).join('')}</tbody></table></div>`
      : `<dl class="entries">${mine.map((r, i) => {
        const id = ids[i]!;
        return `<dt id="${id}"><a class="anchor" href="#${id}">#</a> <code>${esc(r.name)}</code> <span class="type">${esc(r.type)}</span></dt><dd><p>${esc(r.description)}</p>${routesText(r.routes)}</dd>`;
      }).join('')}</dl>`;
    return `<section id="${s}"><h2>${esc(heading)}</h2><p>${esc(intro)}</p>${index}${entries}</section>`;
  }).join('\n');
  return htmlPage({
    title: `Data dictionary: ${title}`,
    service,
    synthetic,
    main: `<h1>Data dictionary</h1><p class="lead">${esc(title)}. The same entries as JSON: <a href="/api/v1/data-dictionary?format=json"><code>/api/v1/data-dictionary?format=json</code></a> (or any client that does not ask for HTML).</p><nav class="toc" aria-label="Contents"><span class="toc-title">Contents</span><ul>${toc}</ul></nav>\n${body}`,
  });
}
