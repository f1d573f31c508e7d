/**
 * The version `GET /api/v1/version` and the API description report: the Gitea API level Cairn implements (the
 * version of the vendored description, api/gitea-api-v1.json) with Cairn's own version as build metadata, e.g.
 * `1.26.3+cairn-0.1.0`. Clients gate features on the Gitea version they read there (a dependency bot turns Gitea's
 * automerge off "below 1.24"), so Cairn's own `0.1.0` alone made it look like an ancient Gitea. Cairn's version is the
 * root package.json's, read at run time so a release bumps one file; this file sits two levels below the package in
 * both src/ and dist/, and the package two levels below the repository root.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { giteaDescription } from './swagger/document';

function readVersion(file: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    const version = typeof parsed === 'object' && parsed !== null ? (parsed as { version?: unknown }).version : undefined;
    return typeof version === 'string' ? version : undefined;
  } catch {
    return undefined;
  }
}

let cached: string | undefined;

/** The root package.json's version; the gateway's own when deployed without the repository root. */
function packageVersion(): string {
  cached ??=
    readVersion(path.resolve(__dirname, '..', '..', '..', 'package.json')) ??
    readVersion(path.resolve(__dirname, '..', 'package.json')) ??
    '0.0.0';
  return cached;
}

/** `<Gitea API level>+cairn-<Cairn's version>`: semantic versioning's build metadata, which version comparisons ignore. */
export function cairnVersion(): string {
  return `${giteaDescription().info.version}+cairn-${packageVersion()}`;
}
