// Runs the finance load (manifest, catalog, long table) on a short-lived
// thread. parquet-wasm's linear memory only grows, so decoding on the main
// thread would keep its peak resident for the life of the server; here it is
// released when the thread exits. The columns come back as SharedArrayBuffers
// (shared, not copied), the catalog by structured clone.

import { parentPort, workerData } from 'node:worker_threads';
import { LoadError, setOnRead } from '../corpus/parquet.js';
import { loadCatalog } from './catalog.js';
import { loadFinanceColumns } from './corpus.js';
import { readManifest } from './manifest.js';

const { dir } = workerData as { dir: string };
setOnRead((file) => parentPort!.postMessage({ reading: file }));

try {
  const manifest = await readManifest(dir);
  const catalog = await loadCatalog(dir, manifest);
  const { columns, stats } = await loadFinanceColumns(catalog);
  parentPort!.postMessage({ ok: true, catalog, columns, stats });
} catch (e) {
  parentPort!.postMessage({
    ok: false,
    file: e instanceof LoadError ? e.file : null,
    message: e instanceof LoadError ? e.message : `${e instanceof Error ? e.message : String(e)}`,
  });
}
