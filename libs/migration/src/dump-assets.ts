/**
 * Where a dump keeps a release asset's bytes: Gitea's services/migrations/dump.go CreateReleases writes each to
 * `release_assets/<tag name>/<asset name>` and puts that relative path in release.yml's `download_url`. Tag and asset
 * names are the source's text, and Gitea joins them as they are; here they are made safe first, so no name leaves
 * the dump's directory: in an asset name `/`, `\`, NUL and other control characters become `_`, as does a name of
 * `.` or `..` (or an empty one); a tag keeps its `/` (a tag `release/v1` is a directory, as in Gitea) with each part
 * cleaned the same way and empty parts dropped. Two assets landing on one path (the same name twice in a release, or
 * names equal once cleaned) are told apart by the source's asset id (`<id>-<name>`), where Gitea would overwrite
 * the first.
 */
import path from 'node:path';
import { DUMP_PATHS } from './dump-format';

const RELEASE_ASSETS_DIR = DUMP_PATHS.releaseAssets;

const UNSAFE = /[/\\\u0000-\u001f\u007f]/g;

/** One path component from user text: never empty, `.` or `..`, never a separator or control character. */
export function safePathPart(text: string): string {
  const cleaned = text.replace(UNSAFE, '_');
  if (cleaned === '' || cleaned === '.') return '_';
  if (cleaned === '..') return '__';
  return cleaned;
}

/** A tag name as nested directories (its `/` kept), each part made safe. */
export function safeTagPath(tagName: string): string {
  const parts = tagName
    .split('/')
    .filter((part) => part !== '')
    .map(safePathPart);
  return parts.length === 0 ? '_' : parts.join('/');
}

/**
 * Hands out assets' relative paths for one dump (`release_assets/<tag>/<name>`, always with `/`), each path once.
 */
export class AssetPaths {
  private readonly taken = new Set<string>();

  next(tagName: string, asset: { id: number; name: string }): string {
    const dir = `${RELEASE_ASSETS_DIR}/${safeTagPath(tagName)}`;
    const name = safePathPart(asset.name);
    for (let n = 0; ; n++) {
      const candidate = n === 0 ? name : n === 1 ? `${asset.id}-${name}` : `${asset.id}-${n}-${name}`;
      const relative = `${dir}/${candidate}`;
      // Case-insensitive file systems would put both in one file.
      const key = relative.toLowerCase();
      if (this.taken.has(key)) continue;
      this.taken.add(key);
      return relative;
    }
  }
}

/** `relative` under `dir`, refusing (as a bug) anything that would resolve outside `dir/release_assets`. */
export function assetFile(dir: string, relative: string): string {
  const root = path.resolve(dir, RELEASE_ASSETS_DIR);
  const file = path.resolve(dir, relative);
  if (!file.startsWith(root + path.sep)) throw new Error(`release asset path ${JSON.stringify(relative)} leaves the dump`);
  return file;
}
