/**
 * scripts/health-probe.js, the docker compose health check: its argument parsing, and the probe itself (as a
 * function and as the command compose runs) against a real gRPC health service and a real HTTP server.
 */
import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { silentLogger } from '@cairn/log';
import { type RpcServer, createRpcServer } from '@cairn/rpc';
import { ROOT } from './support';

interface ProbeResult {
  healthy: boolean;
  detail: string;
}

interface HealthProbeScript {
  TIMEOUT_MS: number;
  UsageError: new (message: string) => Error;
  parseProbeArgs(args: string[]): { kind: 'grpc'; target: string; service: string } | { kind: 'http'; url: string };
  probeGrpc(target: string, service?: string, timeoutMs?: number): Promise<ProbeResult>;
  probeHttp(url: string, timeoutMs?: number): Promise<ProbeResult>;
}

const SCRIPT = path.join(ROOT, 'scripts', 'health-probe.js');
const probe = require(SCRIPT) as HealthProbeScript;

/** Runs the script as compose does; resolves with its exit code and output. */
function runProbe(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SCRIPT, ...args], (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr });
    });
  });
}

describe('health-probe arguments', () => {
  it('reads a gRPC target with an optional service name', () => {
    expect(probe.parseProbeArgs(['grpc', '127.0.0.1:50051'])).toEqual({ kind: 'grpc', target: '127.0.0.1:50051', service: '' });
    expect(probe.parseProbeArgs(['grpc', 'accounts:50051', 'cairn.accounts.v1.UserService'])).toEqual({
      kind: 'grpc',
      target: 'accounts:50051',
      service: 'cairn.accounts.v1.UserService',
    });
    expect(probe.parseProbeArgs(['grpc', '[::1]:50051'])).toMatchObject({ target: '[::1]:50051' });
  });

  it('reads an http(s) URL', () => {
    const url = 'http://127.0.0.1:3000/api/healthz';
    expect(probe.parseProbeArgs(['http', url])).toEqual({ kind: 'http', url });
  });

  it.each([
    [[]],
    [['tcp', '127.0.0.1:1']],
    [['grpc']],
    [['grpc', 'accounts']],
    [['grpc', '127.0.0.1:70000']],
    [['grpc', '127.0.0.1:1', 'svc', 'extra']],
    [['http']],
    [['http', 'not a url']],
    [['http', 'ftp://example.com/']],
    [['http', 'http://127.0.0.1:3000/', 'extra']],
  ])('refuses %j', (args) => {
    expect(() => probe.parseProbeArgs(args)).toThrow(probe.UsageError);
  });

  it('gives up after a short timeout', () => {
    expect(probe.TIMEOUT_MS).toBe(3000);
  });
});

describe('health-probe grpc', () => {
  let server: RpcServer;
  let target: string;

  beforeAll(async () => {
    server = createRpcServer({ service: 'accounts', logger: silentLogger() });
    target = `127.0.0.1:${await server.start('127.0.0.1:0')}`;
  });

  afterAll(async () => {
    await server.stop(0);
  });

  it('is unhealthy while the server reports NOT_SERVING, healthy once SERVING', async () => {
    server.setServing(false);
    expect(await probe.probeGrpc(target)).toEqual({ healthy: false, detail: 'NOT_SERVING' });
    expect(await runProbe(['grpc', target])).toMatchObject({ code: 1 });
    server.setServing(true);
    expect(await probe.probeGrpc(target)).toEqual({ healthy: true, detail: 'SERVING' });
    const run = await runProbe(['grpc', target]);
    expect(run).toMatchObject({ code: 0 });
    expect(run.stdout).toContain('SERVING');
  });

  it('is unhealthy for a service the server does not know', async () => {
    server.setServing(true);
    expect(await probe.probeGrpc(target, 'no.such.Service')).toMatchObject({ healthy: false });
    expect(await runProbe(['grpc', target, 'no.such.Service'])).toMatchObject({ code: 1 });
  });

  it('is unhealthy when nothing listens', async () => {
    const closed = createRpcServer({ service: 'accounts', logger: silentLogger() });
    const port = await closed.start('127.0.0.1:0');
    await closed.stop(0);
    expect(await probe.probeGrpc(`127.0.0.1:${port}`)).toMatchObject({ healthy: false });
    const run = await runProbe(['grpc', `127.0.0.1:${port}`]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('unhealthy');
  });
});

describe('health-probe http', () => {
  let server: http.Server;
  let base: string;
  const hanging = new Set<http.ServerResponse>();

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      if (request.url === '/ok') response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"pass"}');
      else if (request.url === '/fail') response.writeHead(503).end('{"status":"fail"}');
      else if (request.url === '/moved') response.writeHead(302, { location: '/ok' }).end();
      else hanging.add(response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    for (const response of hanging) response.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('is healthy on 2xx only', async () => {
    expect(await probe.probeHttp(`${base}/ok`)).toEqual({ healthy: true, detail: 'HTTP 200' });
    expect(await probe.probeHttp(`${base}/fail`)).toEqual({ healthy: false, detail: 'HTTP 503' });
    expect(await probe.probeHttp(`${base}/moved`)).toEqual({ healthy: false, detail: 'HTTP 302' });
    expect(await runProbe(['http', `${base}/ok`])).toMatchObject({ code: 0 });
    expect(await runProbe(['http', `${base}/fail`])).toMatchObject({ code: 1 });
  });

  it('is unhealthy when the server does not answer in time', async () => {
    expect(await probe.probeHttp(`${base}/hang`, 200)).toMatchObject({ healthy: false });
  });

  it('exits 2 on bad arguments', async () => {
    const run = await runProbe(['http']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('usage');
  });
});
