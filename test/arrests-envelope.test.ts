import { arrestsRoutes } from '../dist/src/arrests/http/routes.js';
import { envelopeContract } from './helpers/envelope-contract.js';
import { arrestsUrl } from './helpers/http.js';

envelopeContract('arrests', arrestsRoutes, arrestsUrl, (p) => p.replace('{leaid}', '1000047').replace('{state}', 'DE'));
