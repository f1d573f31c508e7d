/**
 * The plumbing every baseline server shares: a bare `node:http` server on a free loopback port, the port
 * reported to the harness over IPC, and a clean exit when the harness stops it or goes away.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The message a baseline sends its parent once it listens. */
export interface ListeningMessage {
  port: number;
}

export function requireEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`${name} is not set`);
  return value;
}

export function serveBaseline(handler: http.RequestListener, onClose: () => Promise<void> = async () => {}): void {
  if (process.send === undefined) throw new Error('a baseline runs as a child of the bench harness (IPC channel missing)');
  const server = http.createServer(handler);
  let closing = false;
  const close = (): void => {
    if (closing) return;
    closing = true;
    server.close();
    server.closeAllConnections();
    onClose().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', close);
  process.on('SIGINT', close);
  // The harness died or disconnected: nobody will stop this process otherwise.
  process.on('disconnect', close);
  server.listen(0, '127.0.0.1', () => {
    const message: ListeningMessage = { port: (server.address() as AddressInfo).port };
    process.send?.(message);
  });
}
