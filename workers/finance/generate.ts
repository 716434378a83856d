// Entry of the finance generator's pool: one fiscal year per task.

export { generateFinanceYear } from '../../src/finance/generate.js';
