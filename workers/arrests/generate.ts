// Entry of the generator's pool: one draws shard per task.

export { generateShard } from '../../src/arrests/generate.js';
