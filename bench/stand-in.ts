/** For the scenarios' own tests: a stand-in server on a free loopback port, and a request body read whole. */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningBaseline } from './scenarios/types';

export async function listen(handler: http.RequestListener): Promise<RunningBaseline> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
