export * from '../../bench/lib/server.js';
