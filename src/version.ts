// The package version, read once from package.json (beside dist/ in every layout we ship).

import { createRequire } from 'node:module';

export const VERSION: string = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
