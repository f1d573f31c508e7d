import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { drainable } from './drain';

interface Answer {
  status: number;
  connection: string | undefined;
  body: string;
}

/** A server whose `/slow` answers when the test says so. */
async function startServer() {
  let release: (() => void) | undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  let entered: (() => void) | undefined;
  const inSlow = new Promise<void>((resolve) => (entered = resolve));
  const server = drainable(
    http.createServer((req, res) => {
      if (req.url === '/slow') {
        entered?.();
        void released.then(() => res.end('slow done'));
      } else if (req.url === '/stuck') {
        entered?.();
      } else {
        res.end('fast');
      }
    }),
  );
  await new Promise<void>((resolve) => server.http.listen(0, '127.0.0.1', resolve));
  const port = (server.http.address() as AddressInfo).port;
  return { server, port, inSlow, release: () => release?.() };
}

function get(port: number, path: string, agent: http.Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
      })
      .on('error', reject);
  });
}

/** The socket of the agent's idle keep-alive connection to the server. */
function idleSocket(agent: http.Agent): import('node:net').Socket {
  const sockets = Object.values(agent.freeSockets).flat();
  if (sockets.length !== 1 || sockets[0] === undefined) throw new Error(`expected one idle socket, got ${sockets.length}`);
  return sockets[0];
}

describe('drainable HTTP server', () => {
  it('finishes the request in flight, closes idle keep-alive connections at once and refuses new connections', async () => {
    const { server, port, inSlow, release } = await startServer();
    const idleAgent = new http.Agent({ keepAlive: true });
    const busyAgent = new http.Agent({ keepAlive: true });
    try {
      expect(await get(port, '/fast', idleAgent)).toEqual({ status: 200, connection: 'keep-alive', body: 'fast' });
      const idle = idleSocket(idleAgent);
      const idleClosed = new Promise<void>((resolve) => idle.once('close', () => resolve()));

      const slow = get(port, '/slow', busyAgent);
      await inSlow;
      let drained = false;
      const draining = server.drain(10_000).then(() => (drained = true));

      // The idle connection goes while the slow request is still being answered.
      await idleClosed;
      expect(drained).toBe(false);
      await expect(get(port, '/fast', new http.Agent())).rejects.toMatchObject({ code: 'ECONNREFUSED' });

      release();
      // Answered in full, and told not to reuse the connection.
      expect(await slow).toEqual({ status: 200, connection: 'close', body: 'slow done' });
      await draining;
      expect(drained).toBe(true);
    } finally {
      release();
      idleAgent.destroy();
      busyAgent.destroy();
      await server.drain(0);
    }
  });

  it('cuts what is still running after the grace period', async () => {
    const { server, port, inSlow } = await startServer();
    const agent = new http.Agent({ keepAlive: true });
    try {
      const stuck = get(port, '/stuck', agent);
      await inSlow;
      await server.drain(50);
      await expect(stuck).rejects.toMatchObject({ code: 'ECONNRESET' });
    } finally {
      agent.destroy();
    }
  });
});
