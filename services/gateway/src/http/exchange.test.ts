import type { AddressInfo } from 'node:net';
import { type ErrorHandler, createGatewayServer, GatewayRequest, GatewayResponse } from './exchange';
import { createRouter } from './express-router';

interface Seen {
  isGatewayRequest: boolean;
  isGatewayResponse: boolean;
  path: string;
  baseUrl: string;
  originalUrl: string;
  url: string;
  params: Record<string, string>;
}

/** A server routing with express's router, /api/v1 mounted as the gateway mounts it; answers what the handler saw. */
async function serve(): Promise<{ url: string; close(): Promise<void> }> {
  const api = createRouter();
  api.get('/users/:username', (req, res) => {
    const seen: Seen = {
      isGatewayRequest: req instanceof GatewayRequest,
      isGatewayResponse: res instanceof GatewayResponse,
      path: req.path,
      baseUrl: req.baseUrl,
      originalUrl: req.originalUrl,
      url: req.url ?? '',
      params: req.params,
    };
    res.end(JSON.stringify(seen));
  });
  api.get('/fails', async () => {
    throw new Error('handler failed');
  });
  // Four parameters, or the router takes it for an ordinary layer.
  const caught: ErrorHandler = (error, _req, res, _next) => {
    res.statusCode = 500;
    res.end(`caught: ${(error as Error).message}`);
  };
  api.use(caught);
  const top = createRouter();
  top.use('/api/v1', api);
  top.use((req, res) => {
    res.statusCode = 404;
    res.end(`not routed: ${req.path}`);
  });
  const server = createGatewayServer((req, res) => top.handle(req, res, () => undefined));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('the gateway request and response under express router', () => {
  let server: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    server = await serve();
  });
  afterAll(() => server.close());

  it("gives handlers the gateway's classes with what express's request has: path below the mount, baseUrl, originalUrl, params", async () => {
    const res = await fetch(`${server.url}/api/v1/users/al%20ice?limit=3`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      isGatewayRequest: true,
      isGatewayResponse: true,
      path: '/users/al%20ice',
      baseUrl: '/api/v1',
      originalUrl: '/api/v1/users/al%20ice?limit=3',
      url: '/users/al%20ice?limit=3',
      params: { username: 'al ice' },
    });
  });

  it('matches case-sensitively', async () => {
    const res = await fetch(`${server.url}/API/v1/users/alice`);
    expect(res.status).toBe(404);
    expect(await res.text()).toBe('not routed: /API/v1/users/alice');
  });

  it("passes a rejected handler's error to the error layers", async () => {
    const res = await fetch(`${server.url}/api/v1/fails`);
    expect(res.status).toBe(500);
    expect(await res.text()).toBe('caught: handler failed');
  });
});
