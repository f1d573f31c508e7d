/**
 * Baseline for `release-asset`: a bare `node:http` file server — `PUT /files/<name>` streams the body into a file,
 * `GET` streams it back with its length, `DELETE` removes it. The least any server can do with the same bytes.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import * as path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { requireEnv, serveBaseline } from './serve';

const directory = requireEnv('BENCH_FILES_DIR');

serveBaseline((req, res) => {
  const match = /^\/files\/([A-Za-z0-9._-]+)$/.exec(req.url ?? '');
  if (match === null) {
    res.writeHead(404).end();
    return;
  }
  const file = path.join(directory, match[1]);
  const fail = (error: unknown): void => {
    if (!res.headersSent) res.writeHead(500);
    res.end(String(error));
  };
  switch (req.method) {
    case 'PUT':
      pipeline(req, createWriteStream(file)).then(() => res.writeHead(201).end(), fail);
      return;
    case 'GET':
      stat(file).then(({ size }) => {
        res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': size });
        return pipeline(createReadStream(file), res);
      }, fail).catch(() => res.destroy());
      return;
    case 'DELETE':
      rm(file, { force: true }).then(() => res.writeHead(204).end(), fail);
      return;
    default:
      res.writeHead(405).end();
  }
});
