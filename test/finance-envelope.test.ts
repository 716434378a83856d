import { financeRoutes } from '../dist/src/finance/http/routes.js';
import { envelopeContract } from './helpers/envelope-contract.js';
import { financeUrl } from './helpers/http.js';

envelopeContract('finance', financeRoutes, financeUrl, (p) => p.replace('{govid}', '062037161174').replace('{name}', 'spending-latest.parquet'));
