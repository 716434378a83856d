// Entry of the short-lived build pool that summarises the school draws. It is
// a separate pool from the serving one because decoding parquet needs
// parquet-wasm, whose memory only grows; the pool is closed after the build.

export { summarizeShard } from './summarize.js';
