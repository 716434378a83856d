// A uWS listening socket that can be closed and opened again on its port: the
// connection gate (conn-gate.ts) closes it past the connection cap and opens
// it again below, and shutdown closes it for good. Closing twice, or opening
// while open, does nothing (a listening socket closed twice would crash uWS).

import type { UWS } from './uws.js';

export class Listener {
  private sock: UWS.us_listen_socket | null = null;
  private done = false;
  port: number;

  constructor(private readonly uws: typeof UWS, private readonly app: UWS.TemplatedApp, private readonly host: string, port: number) {
    this.port = port;
  }

  /** Listens (on the port it was given, or once bound, the port it got); rejects, naming the address, when it cannot. */
  open(): Promise<void> {
    if (this.sock !== null || this.done) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.app.listen(this.host, this.port, (s) => {
        if (!s) { reject(new Error(`cannot listen on ${this.host}:${this.port}`)); return; }
        // Shut down while the listen was under way: close what it opened.
        if (this.done) { this.uws.us_listen_socket_close(s); resolve(); return; }
        this.sock = s;
        this.port = this.uws.us_socket_local_port(s as unknown as UWS.us_socket);
        resolve();
      });
    });
  }

  /** Stops accepting; connections already open are served. */
  close(): void {
    if (this.sock === null) return;
    this.uws.us_listen_socket_close(this.sock);
    this.sock = null;
  }

  /** Closes for good: the gate cannot open it again. */
  shut(): void {
    this.done = true;
    this.close();
  }
}
