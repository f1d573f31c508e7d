/**
 * Archive downloads (routers/api/v1/repo/file.go `GetArchive`, services/repository/archiver): `<ref>.zip`,
 * `<ref>.tar.gz` or `<ref>.bundle` (the ref may hold `/`), streamed from `git archive` / `git bundle` as it is
 * made, every entry under `<repo name>/`, downloaded as `<repo>-<ref with / as ->.<ext>`. An unknown format is
 * 400 and an unknown ref 404, with Gitea's messages.
 */
import { HttpError } from '@cairn/http';
import { Code } from '@cairn/rpc';
import type { Repository } from '@cairn/proto/cairn/repos/v1/repos_service';
import { UNIT_CODE, gitRepositoryOf } from '@cairn/gitea-json';
import type { ApiRegistry } from '../../api/registry';
import { type ApiReply, type GatewayServices, repoOf } from '../../api/types';
import { startStream } from '../../http/stream';
import { READ_ERRORS, answering, contentDisposition } from './git-context';

/** Archive formats by file-name suffix, with the content type Go's sniffer gives them. */
const FORMATS: ReadonlyArray<{ suffix: string; format: string; contentType: string }> = [
  { suffix: '.zip', format: 'zip', contentType: 'application/zip' },
  { suffix: '.tar.gz', format: 'tar.gz', contentType: 'application/x-gzip' },
  { suffix: '.bundle', format: 'bundle', contentType: 'application/octet-stream' },
];

/**
 * The archive `requested` names (`<ref>.<format>`) of the repository, streamed: 400 for an unknown format, 404 for
 * an unknown ref. The API route and the web route (`<ROOT_URL><owner>/<repo>/archive/…`, the releases' and tags'
 * `zipball_url` / `tarball_url`: git/archive-route.ts) both answer with it.
 */
export async function archiveReply(services: GatewayServices, repository: Repository, requested: string): Promise<ApiReply> {
  const git = gitRepositoryOf(repository);
  const kind = FORMATS.find(({ suffix }) => requested.endsWith(suffix) && requested.length > suffix.length);
  if (kind === undefined) throw HttpError.badRequest(`unknown format: ${requested}`);
  const refName = requested.slice(0, -kind.suffix.length);
  const unknownRef = () => new HttpError(404, `unrecognized repository reference: ${refName}`);
  const { sha } = await answering(services.clients.refs.resolveRevision({ repository: git, revision: refName }), {
    [Code.NOT_FOUND]: unknownRef,
    [Code.INVALID_ARGUMENT]: unknownRef,
  });
  const archive = await startStream(services.clients.contents.getArchive({ repository: git, revision: sha, format: kind.format, prefix: repository.name }));
  async function* bytes(): AsyncIterable<Uint8Array> {
    try {
      if (archive.first !== undefined) yield archive.first.data;
      for await (const message of archive.rest) yield message.data;
    } finally {
      await archive.cancel();
    }
  }
  const fileName = `${repository.name}-${refName.replace(/\//g, '-')}.${kind.format}`;
  return {
    status: 200,
    headers: {
      'Content-Type': kind.contentType,
      'Content-Disposition': contentDisposition('attachment', fileName),
      'Access-Control-Expose-Headers': 'Content-Disposition',
    },
    stream: bytes(),
  };
}

export function registerArchiveRoutes(api: ApiRegistry): void {
  api.route({
    scope: 'repository',
    auth: 'optional',
    repo: { unit: UNIT_CODE, mode: 'read' },
    errors: READ_ERRORS,
    method: 'get',
    path: '/repos/{owner}/{repo}/archive/{archive}',
    pathWildcards: ['archive'],
    operationId: 'repoGetArchive',
    handler: (ctx) => archiveReply(ctx.services, repoOf(ctx).repository, ctx.params.archive ?? ''),
  });
}
