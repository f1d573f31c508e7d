#!/usr/bin/env node
// Health check for containers whose runtime has no native probes (docker compose; Kubernetes uses its own
// `grpc:` and `httpGet:` probes):
//   node scripts/health-probe.js grpc <host:port> [service]   standard gRPC health service (grpc.health.v1), SERVING
//   node scripts/health-probe.js http <url>                    GET answers 2xx
// Exit status: 0 healthy, 1 unhealthy (or no answer within 3 s), 2 usage error.
'use strict';
const path = require('node:path');
const { createRequire } = require('node:module');

const TIMEOUT_MS = 3000;
const USAGE = 'usage: health-probe.js grpc <host:port> [service] | health-probe.js http <url>';
const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[^\s:/[\]]+):(\d{1,5})$/;

class UsageError extends Error {}

/** `{ kind: 'grpc', target, service }` or `{ kind: 'http', url }`; throws UsageError. */
function parseProbeArgs(args) {
  const [kind, target, service, ...extra] = args;
  if (kind === 'grpc') {
    const match = target === undefined ? null : HOST_PORT.exec(target);
    if (match === null || Number(match[2]) > 65535) throw new UsageError(`expected host:port, got ${JSON.stringify(target)}\n${USAGE}`);
    if (extra.length > 0) throw new UsageError(USAGE);
    return { kind, target, service: service ?? '' };
  }
  if (kind === 'http') {
    const notUrl = new UsageError(`expected an http(s) URL, got ${JSON.stringify(target)}\n${USAGE}`);
    let url;
    try {
      url = new URL(target ?? '');
    } catch {
      throw notUrl;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw notUrl;
    if (service !== undefined) throw new UsageError(USAGE);
    return { kind, url: url.href };
  }
  throw new UsageError(USAGE);
}

/**
 * One grpc.health.v1 Check call: `{ healthy, detail }`, never throws. grpc-js comes from the rpc library's
 * dependencies (loaded only for gRPC probes, which keeps the HTTP probe quick).
 */
function probeGrpc(target, service = '', timeoutMs = TIMEOUT_MS) {
  const requireFromRpc = createRequire(path.join(__dirname, '..', 'libs', 'rpc', 'package.json'));
  const grpc = requireFromRpc('@grpc/grpc-js');
  const { service: health } = requireFromRpc('grpc-health-check');
  const client = new grpc.Client(target, grpc.credentials.createInsecure());
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      health.Check.path,
      health.Check.requestSerialize,
      health.Check.responseDeserialize,
      { service },
      new grpc.Metadata(),
      { deadline: Date.now() + timeoutMs },
      (error, response) => {
        client.close();
        if (error) resolve({ healthy: false, detail: error.message });
        else resolve({ healthy: response.status === 'SERVING', detail: String(response.status) });
      },
    );
  });
}

/** GET `url`: healthy on a 2xx answer (redirects are not followed); never throws. */
async function probeHttp(url, timeoutMs = TIMEOUT_MS) {
  try {
    const response = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    await response.body?.cancel();
    return { healthy: response.status >= 200 && response.status < 300, detail: `HTTP ${response.status}` };
  } catch (error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return { healthy: false, detail: `${error.message}${cause}` };
  }
}

async function main(args) {
  let probe;
  try {
    probe = parseProbeArgs(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`health-probe: ${error.message}\n`);
    process.exit(2);
  }
  // Belt and braces: whatever happens inside the client libraries, the probe answers in time.
  setTimeout(() => {
    process.stderr.write(`unhealthy: no answer within ${TIMEOUT_MS} ms\n`);
    process.exit(1);
  }, TIMEOUT_MS + 1000).unref();
  const what = probe.kind === 'grpc' ? `${probe.target}${probe.service ? ` (${probe.service})` : ''}` : probe.url;
  const result = probe.kind === 'grpc' ? await probeGrpc(probe.target, probe.service) : await probeHttp(probe.url);
  if (result.healthy) process.stdout.write(`healthy: ${what}: ${result.detail}\n`);
  else process.stderr.write(`unhealthy: ${what}: ${result.detail}\n`);
  process.exit(result.healthy ? 0 : 1);
}

module.exports = { TIMEOUT_MS, UsageError, parseProbeArgs, probeGrpc, probeHttp };

if (require.main === module) {
  main(process.argv.slice(2)).catch((error) => {
    process.stderr.write(`unhealthy: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
