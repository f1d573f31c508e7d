/** Baseline for `GET /api/v1/version`: the same JSON from a bare `node:http` server. */
import { JSON_CONTENT_TYPE, goJson } from './gitea-json';
import { requireEnv, serveBaseline } from './serve';

const version = requireEnv('BENCH_VERSION');

serveBaseline((req, res) => {
  if (req.method !== 'GET' || req.url !== '/api/v1/version') {
    res.writeHead(404).end();
    return;
  }
  const body = goJson({ version });
  res.writeHead(200, { 'Content-Type': JSON_CONTENT_TYPE, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
});
