// The line `npm start` shows a person at a terminal for each service, beside
// the JSON log line a machine reads: what it is and where to click.

/** The service and its URLs: the API root, the docs and the explorer. */
export function humanLine(service: string, host: string, port: number): string {
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const name = service === 'finance' ? 'Government finance API' : 'School arrest-rate estimates API (synthetic draws mirror)';
  return `${name}: ${base}/api/v1/  docs ${base}/__docs__/  explorer ${base}/explore/`;
}
