// Short-lived loader threads. parquet-wasm's linear memory only grows, so
// decoding on the main thread would keep its peak resident for the life of
// the server; on these threads it is released when they exit.
//   job 'catalog':    manifest + metadata tables -> the catalog (structured clone)
//   job 'partitions': some long partitions -> written into the shared row columns
// Any fault is reported with the file being read.

import { parentPort, workerData } from 'node:worker_threads';
import { LoadError, setOnRead } from '../corpus/parquet.js';
import { loadCatalog } from './catalog.js';
import { loadPartitions } from './corpus.js';
import type { PartitionJob } from './corpus-layout.js';
import { readManifest } from './manifest.js';

const data = workerData as { job: 'catalog'; dir: string } | { job: 'partitions'; partitions: PartitionJob };
setOnRead((file) => parentPort!.postMessage({ reading: file }));

try {
  const result = data.job === 'catalog'
    ? await loadCatalog(data.dir, await readManifest(data.dir))
    : await loadPartitions(data.partitions);
  parentPort!.postMessage({ ok: true, result });
} catch (e) {
  parentPort!.postMessage({
    ok: false,
    file: e instanceof LoadError ? e.file : null,
    message: e instanceof Error ? e.message : String(e),
  });
}
