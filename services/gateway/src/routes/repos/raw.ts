/**
 * Raw files (routers/api/v1/repo/file.go `GetRawFile`, routers/common/serve.go `ServeBlob`): a file's bytes at
 * `?ref=`, or at the ref its path starts with (`raw/<branch|tag|sha>/<path>`, Gitea's getRefNameLegacy: the
 * longest branch, else tag, else commit; `HEAD/` is the default branch; no known prefix reads the whole path on
 * the default branch). Streamed from git-storage as it comes, with Gitea's headers: the sniffed content type,
 * `inline` disposition, `ETag` of the blob, `X-Gitea-Object-Type`, and public caching for public repositories.
 * `media/` serves the same (Cairn stores no LFS objects, so there are no pointers to resolve).
 */
import { HttpError, goFormString } from '@cairn/http';
import type { TreeEntry } from '@cairn/proto/cairn/git/v1/git_service';
import { Code, isCairnError } from '@cairn/rpc';
import { UNIT_CODE } from '@cairn/gitea-json';
import type { ApiRegistry } from '../../api/registry';
import type { ApiContext, ApiReply } from '../../api/types';
import { startStream } from '../../http/stream';
import { READ_ERRORS, type GitRepoContext, answering, contentDisposition, gitRepoOf } from './git-context';

/** Gitea's `[server] STATIC_CACHE_TIME` (6 h), the max-age of raw files. */
const STATIC_CACHE_SECONDS = 6 * 60 * 60;

const SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

/** Where a raw path points: the revision and the path inside it. */
async function locate<B>(ctx: ApiContext<B>, repo: GitRepoContext, filepath: string): Promise<{ revision: string; path: string }> {
  const ref = goFormString(ctx.query, 'ref').trim();
  if (ref !== '') return { revision: ref, path: filepath };
  if (filepath.startsWith('HEAD/')) return { revision: repo.repository.defaultBranch, path: filepath.slice('HEAD/'.length) };
  try {
    const found = await ctx.services.clients.refs.resolveRefPath({ repository: repo.git, path: filepath });
    return { revision: found.sha, path: found.rest };
  } catch (error) {
    if (isCairnError(error) && error.code === Code.NOT_FOUND) return { revision: repo.repository.defaultBranch, path: filepath };
    throw error;
  }
}

const SIGNATURES: ReadonlyArray<readonly [Buffer, string]> = [
  [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), 'image/png'],
  [Buffer.from([0xff, 0xd8, 0xff]), 'image/jpeg'],
  [Buffer.from('GIF87a'), 'image/gif'],
  [Buffer.from('GIF89a'), 'image/gif'],
  [Buffer.from('%PDF-'), 'application/pdf'],
  [Buffer.from([0x50, 0x4b, 0x03, 0x04]), 'application/zip'],
  [Buffer.from([0x1f, 0x8b, 0x08]), 'application/x-gzip'],
];

/**
 * Whether `text` opens an SVG document (Gitea's modules/typesniffer svgTagRegex): white space, an optional XML
 * declaration, comments, an optional `<!DOCTYPE svg …>`, then `<svg` and white space or `>`, ignoring case. A scan,
 * not the backtracking pattern `(<!--[\s\S]*?-->\s*)*` that took exponential time over a kilobyte of `<!---->`s:
 * as that pattern may end a comment at any later `-->`, every `-->` after the first `<!--` is a place the doctype
 * or `<svg` may follow, and each is tried once.
 */
function looksLikeSvg(text: string): boolean {
  const startsWith = (at: number, word: string) => text.slice(at, at + word.length).toLowerCase() === word;
  const skipSpace = (from: number) => {
    let at = from;
    while (at < text.length && /\s/.test(text[at])) at++;
    return at;
  };
  const svgAt = (from: number): boolean => {
    let at = from;
    if (startsWith(at, '<!doctype svg')) {
      const end = text.indexOf('>', at);
      if (end < 0) return false;
      at = skipSpace(end + 1);
    }
    return startsWith(at, '<svg') && /[\s>]/.test(text.charAt(at + 4));
  };
  let at = skipSpace(0);
  if (startsWith(at, '<?xml')) {
    const end = text.indexOf('>', at);
    if (end < 0) return false;
    at = skipSpace(end + 1);
  }
  if (svgAt(at)) return true;
  if (!text.startsWith('<!--', at)) return false;
  for (let end = text.indexOf('-->', at + 4); end >= 0; end = text.indexOf('-->', end + 1)) if (svgAt(skipSpace(end + 3))) return true;
  return false;
}

/** The content type Gitea's type sniffer gives the first bytes: known binary signatures, SVG, text or bytes. */
export function sniffContentType(head: Buffer): string {
  for (const [signature, type] of SIGNATURES) if (head.subarray(0, signature.length).equals(signature)) return type;
  if (head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  if (head.includes(0)) return 'application/octet-stream';
  const text = head.toString('utf8');
  if (looksLikeSvg(text)) return 'image/svg+xml';
  return 'text/plain; charset=utf-8';
}

async function serveRaw<B>(ctx: ApiContext<B>): Promise<ApiReply> {
  const repo = gitRepoOf(ctx);
  const { revision, path } = await locate(ctx, repo, ctx.params.filepath ?? '');
  const blob = await answering(startStream(ctx.services.clients.contents.getBlob({ repository: repo.git, revision, path })), {
    [Code.NOT_FOUND]: () => HttpError.notFound(),
  });
  const entry: TreeEntry | undefined = blob.first?.entry;
  if (entry === undefined || entry.type === 'dir' || entry.type === 'submodule') {
    await blob.cancel();
    throw HttpError.notFound();
  }
  // The first message may carry the first bytes too; the type is sniffed from what arrives first.
  let head = blob.first?.data ?? Buffer.alloc(0);
  const rest = blob.rest[Symbol.asyncIterator]();
  if (head.length === 0 && entry.size > 0) {
    const next = await rest.next();
    head = next.done ? head : next.value.data;
  }
  const contentType = sniffContentType(head.subarray(0, 1024));
  const { repository } = repo;
  const cacheable = !repository.private && repository.ownerVisibility === 'public';
  const headers: Record<string, string> = {
    'X-Gitea-Object-Type': entry.type,
    'Content-Type': contentType,
    'Content-Length': String(entry.size),
    'Content-Disposition': contentDisposition('inline', path.slice(path.lastIndexOf('/') + 1)),
    'Access-Control-Expose-Headers': 'Content-Disposition',
    'Cache-Control': `${cacheable ? 'public' : 'private'}, max-age=${STATIC_CACHE_SECONDS}, no-transform`,
    ETag: `"${entry.sha}"`,
  };
  if (contentType === 'image/svg+xml') headers['Content-Security-Policy'] = SVG_CSP;
  async function* bytes(): AsyncIterable<Uint8Array> {
    try {
      yield head;
      for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value.data;
    } finally {
      // Ends the call when the client left before the end.
      await blob.cancel();
    }
  }
  return { status: 200, headers, stream: bytes() };
}

export function registerRawRoutes(api: ApiRegistry): void {
  const reader = { scope: 'repository', auth: 'optional', repo: { unit: UNIT_CODE, mode: 'read' }, errors: READ_ERRORS, pathWildcards: ['filepath'] } as const;

  api.route({ ...reader, method: 'get', path: '/repos/{owner}/{repo}/raw/{filepath}', operationId: 'repoGetRawFile', handler: serveRaw });
  api.route({ ...reader, method: 'get', path: '/repos/{owner}/{repo}/media/{filepath}', operationId: 'repoGetRawFileOrLFS', handler: serveRaw });
}
