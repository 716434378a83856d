// The landing page at / of each service: what the service is, its scope
// (years, holes, synthetic or real), and the ways in: the explorer, the docs,
// examples that run, the bulk files, the data dictionary. A browser (Accept
// preferring text/html) gets the page; any other client the same facts as a
// JSON index in the envelope.

import { ok } from '../envelope.js';
import type { RouteSpec } from '../route-spec.js';
import { esc, htmlPage } from './html.js';

export interface LandingLink { label: string; href: string; note: string }

/** What a service says of itself on its landing page. */
export interface Landing {
  /** Short name, shown in the header ("US government finance"). */
  service: string;
  title: string;
  /** One paragraph: what it publishes. */
  summary: string;
  /** Label and value pairs: years, holes, units, source. */
  facts: [string, string][];
  synthetic: boolean;
  /** The ways in beyond those every service has (the bulk files). */
  links: LandingLink[];
  /** What its explorer offers, in one line. */
  explorerNote: string;
  /** The formats its answers come in, in one line under the examples. */
  formatsNote: string;
  attribution: string;
}

/** The ways in every service has. */
const commonLinks = (l: Landing): LandingLink[] => [
  { label: 'Explorer', href: '/explore/', note: l.explorerNote },
  { label: 'API docs', href: '/__docs__/', note: 'Every route, parameter and field, tried in the browser (OpenAPI 3.1 at /openapi.json).' },
  { label: 'Data dictionary', href: '/api/v1/data-dictionary', note: 'Every field, parameter, decision, caveat and error code.' },
  { label: 'Examples', href: '/api/v1/examples', note: 'Example calls generated from the live data.' },
  { label: 'llms.txt', href: '/api/v1/llms.txt', note: 'The API in plain text, for language models and people.' },
];

/** The JSON index: the landing page's facts for a client that does not ask for HTML. */
export function landingIndex(l: Landing): unknown[] {
  const links = Object.fromEntries([...commonLinks(l), ...l.links].map((k) => [k.label.toLowerCase().replace(/[^a-z0-9]+/g, '_'), k.href]));
  return [{ service: l.service, title: l.title, summary: l.summary, scope: Object.fromEntries(l.facts), synthetic: l.synthetic, links: { api: '/api/v1/', openapi: '/openapi.json', ...links }, attribution: l.attribution }];
}

export function landingHtml<Ctx>(l: Landing, routes: readonly RouteSpec<Ctx>[], ctx: Ctx): string {
  const facts = l.facts.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join('');
  const ways = [...commonLinks(l), ...l.links].map((k) => `<li><a href="${esc(k.href)}">${esc(k.label)}</a> <span>${esc(k.note)}</span></li>`).join('');
  // The route table's own examples (each is run by a test): the first of each data route, at most eight.
  const examples = routes.filter((r) => !r.tags.includes('metadata') && !r.operational).flatMap((r) => (r.examples?.(ctx) ?? []).slice(0, 1)).slice(0, 8);
  const ex = examples.map((e) => `<li><a href="${esc(e.path)}"><code>${esc(e.path)}</code></a> <span>${esc(e.description)}</span></li>`).join('');
  return htmlPage({
    title: `civicstream: ${l.title}`,
    service: l.service,
    synthetic: l.synthetic,
    main: [
      `<h1>${esc(l.title)}</h1>`,
      `<p class="lead">${esc(l.summary)}</p>`,
      `<section><h2>Scope</h2><dl class="facts">${facts}</dl></section>`,
      `<section><h2>Ways in</h2><ul class="ways">${ways}</ul></section>`,
      `<section><h2>Try it</h2><ul class="examples">${ex}</ul><p>${esc(l.formatsNote)}</p></section>`,
      `<footer><p>${esc(l.attribution)}</p></footer>`,
    ].join('\n'),
  });
}
