// The server spawner, shared with the benches (scripts/lib/server.ts), from
// the built dist/ like every other import of the tests.
export * from '../../dist/scripts/lib/server.js';
