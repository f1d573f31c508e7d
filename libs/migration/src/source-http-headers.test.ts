/** createSourceClient's per-request headers (GitHub's topics preview and octet-stream asset downloads need them). */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { migrationPolicy } from '@cairn/outbound';
import { createSourceClient, readLimited } from './source-http';

const policy = migrationPolicy({ allowedDomains: [], blockedDomains: [], allowLocalnetworks: true });

describe('createSourceClient request headers', () => {
  let server: http.Server;
  let url = '';
  const seen: http.IncomingHttpHeaders[] = [];

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      seen.push(request.headers);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  beforeEach(() => {
    seen.length = 0;
  });

  it('lays a request’s headers over the source’s, replacing a header of the same name whatever its case', async () => {
    const client = createSourceClient({ policy, headers: { Accept: 'application/json', authorization: 'Bearer t0ken' } });
    await client.getJson(url, 'GET /x', { headers: { accept: 'application/vnd.github.mercy-preview+json' } });
    await client.getJson(url, 'GET /x');
    expect(seen.map((headers) => [headers.accept, headers.authorization])).toEqual([
      ['application/vnd.github.mercy-preview+json', 'Bearer t0ken'],
      ['application/json', 'Bearer t0ken'],
    ]);
  });

  it('sends a stream request’s own headers, and only those when it is anonymous', async () => {
    const client = createSourceClient({ policy, headers: { accept: 'application/json', authorization: 'Bearer t0ken' } });
    await readLimited(await client.open(url, 'asset', { headers: { Accept: 'application/octet-stream' } }), 1024, 'asset');
    await readLimited(await client.open(url, 'asset', { anonymous: true, headers: { accept: 'application/octet-stream' } }), 1024, 'asset');
    expect(seen.map((headers) => [headers.accept, headers.authorization])).toEqual([
      ['application/octet-stream', 'Bearer t0ken'],
      ['application/octet-stream', undefined],
    ]);
  });
});
