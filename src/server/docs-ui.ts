// /__docs__/: Swagger UI from the swagger-ui-dist npm package, served from
// memory under a fixed list of paths (nothing is resolved from the URL, so
// there is no path to traverse), pointed at this server's /openapi.json.
// Everything loads from this server: no CDN, so the page works offline.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Asset } from './http.js';
import { PAGE_HEADERS } from './explore.js';

const require = createRequire(import.meta.url);

export function docsAssets(title: string): Map<string, Asset> {
  const dist = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  const file = (name: string): Uint8Array => readFileSync(path.join(dist, name));
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${title}: API docs</title>
<link rel="stylesheet" href="/__docs__/swagger-ui.css">
<link rel="icon" type="image/png" href="/__docs__/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/__docs__/swagger-ui-bundle.js"></script>
<script src="/__docs__/init.js"></script>
</body>
</html>
`;
  const init = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, docExpansion: 'list', defaultModelsExpandDepth: 0, validatorUrl: null });
  // Swagger UI's server list is a select whose label element holds no text, so a screen reader
  // announces it unnamed; it is named here whenever Swagger UI (re)renders it.
  new MutationObserver(function () {
    var s = document.getElementById('servers');
    if (s !== null && !s.hasAttribute('aria-label')) s.setAttribute('aria-label', 'Server the requests go to');
  }).observe(document.getElementById('swagger-ui'), { childList: true, subtree: true });
});
`;
  const page: Asset = { contentType: 'text/html; charset=utf-8', body: html, headers: { ...PAGE_HEADERS } };
  return new Map<string, Asset>([
    ['/__docs__/', page],
    ['/__docs__', page],
    ['/__docs__/index.html', page],
    ['/__docs__/init.js', { contentType: 'text/javascript; charset=utf-8', body: init }],
    ['/__docs__/swagger-ui.css', { contentType: 'text/css; charset=utf-8', body: file('swagger-ui.css') }],
    ['/__docs__/swagger-ui-bundle.js', { contentType: 'text/javascript; charset=utf-8', body: file('swagger-ui-bundle.js') }],
    ['/__docs__/favicon-32x32.png', { contentType: 'image/png', body: file('favicon-32x32.png') }],
  ]);
}
