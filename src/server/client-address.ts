// The uWS side of the address a request is charged to (issue 20): the socket
// peer and every X-Forwarded-For line, read in the handler itself. Which of
// them is the client is decided apart from the transport (src/ip-address.ts).
//
// What uWebSockets.js hands us (this build, @trufflesuite/uws-js-unofficial
// 20.30.0, probed on 127.0.0.1, ::1, '::' and '' listeners):
//   res.getRemoteAddressAsText()  an ArrayBuffer of text:
//     IPv4 listener, IPv4 client:   '127.0.0.1'
//     IPv6 listener, IPv6 client:   '0000:0000:0000:0000:0000:0000:0000:0001'  (all 8 groups, 4 digits each)
//     '::' or '' (dual-stack) listener, IPv4 client:
//                                   '0000:0000:0000:0000:0000:ffff:7f00:0001'  (IPv4-mapped, in hex, not dotted)
//   res.getRemoteAddress()        the same as 4 or 16 raw bytes.
//   req.getHeader('x-forwarded-for') only the first X-Forwarded-For line;
//     a proxy that adds its own line after the client's would be read as
//     the client's spoof, so forwardedFor() joins every line.
// peerText() reads the raw bytes (no text to parse) and returns the normal
// form: '127.0.0.1' for the mapped form, '::1' for the expanded one. Both
// must be called in the uWS handler itself, before any await.

import { ipv6BytesText } from '../ip-address.js';
import type { UWS } from './uws.js';

export { clientAddress, parseTrustedProxies, type TrustedProxies } from '../ip-address.js';

/** The socket peer of a uWS response in normal form, from its raw 4 or 16 bytes. Call it in the handler, before any await. */
export function peerText(res: UWS.HttpResponse): string {
  const raw = new Uint8Array(res.getRemoteAddress());
  if (raw.length === 4) return `${raw[0]}.${raw[1]}.${raw[2]}.${raw[3]}`;
  if (raw.length !== 16) return Buffer.from(res.getRemoteAddressAsText()).toString('latin1');
  return ipv6BytesText(raw);
}

/** One more X-Forwarded-For line, after those read so far: the lines in order, joined with ','. */
export const appendForwarded = (joined: string, line: string): string => (joined === '' ? line : `${joined},${line}`);

/** Every X-Forwarded-For line of a uWS request, in order, joined with ',' (getHeader reads the first line only). */
export function forwardedFor(req: UWS.HttpRequest): string {
  let joined = '';
  req.forEach((name, value) => {
    if (name === 'x-forwarded-for') joined = appendForwarded(joined, value);
  });
  return joined;
}
