import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, currentRequestId, type Logger } from '@cairn/log';
import { createGatewayServer, type GatewayRequest, type GatewayResponse } from './exchange';
import { withRequestContext } from './request-context';

type Lines = Array<Record<string, unknown>>;

function capturingLogger(level: string): { logger: Logger; lines: Lines } {
  const lines: Lines = [];
  const logger = createLogger({ service: 'gateway', level, destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) } });
  return { logger, lines };
}

async function serve(logger: Logger, handle: (req: GatewayRequest, res: GatewayResponse) => void): Promise<{ port: number; close(): Promise<void> }> {
  const server = createGatewayServer(withRequestContext(logger, handle));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function until<T>(probe: () => T | undefined): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('timed out');
}

describe('request context', () => {
  it('makes the request id ambient, echoes it with nosniff, and logs one line without the query', async () => {
    const { logger, lines } = capturingLogger('info');
    const server = await serve(logger, (_req, res) => {
      setImmediate(() => res.end(currentRequestId()));
    });
    try {
      const res = await fetch(`http://127.0.0.1:${server.port}/some/path?token=secret`, { headers: { 'X-Request-Id': 'req-42' } });
      expect(await res.text()).toBe('req-42');
      expect(res.headers.get('x-request-id')).toBe('req-42');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      const line = await until(() => lines.find((l) => l.msg === 'request'));
      expect(line).toMatchObject({ method: 'GET', path: '/some/path', status: 200, request_id: 'req-42' });
      expect(typeof line.duration_ms).toBe('number');
      expect(JSON.stringify(lines)).not.toContain('secret');
    } finally {
      await server.close();
    }
  });

  it('builds no log line when the level leaves requests out', async () => {
    const { logger, lines } = capturingLogger('warn');
    const info = jest.spyOn(logger, 'info');
    let closed = 0;
    const server = await serve(logger, (_req, res) => {
      res.on('close', () => closed++);
      res.end('ok');
    });
    try {
      expect(await (await fetch(`http://127.0.0.1:${server.port}/`)).text()).toBe('ok');
      await until(() => (closed === 1 ? true : undefined));
      expect(info).not.toHaveBeenCalled();
      expect(lines).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('logs 499 when the client leaves before the answer', async () => {
    const { logger, lines } = capturingLogger('info');
    let arrived: (() => void) | undefined;
    const inHandler = new Promise<void>((resolve) => (arrived = resolve));
    const server = await serve(logger, () => arrived?.());
    try {
      const req = http.get({ host: '127.0.0.1', port: server.port, path: '/slow' });
      req.on('error', () => undefined);
      await inHandler;
      req.destroy();
      const line = await until(() => lines.find((l) => l.msg === 'request'));
      expect(line).toMatchObject({ path: '/slow', status: 499 });
    } finally {
      await server.close();
    }
  });
});
