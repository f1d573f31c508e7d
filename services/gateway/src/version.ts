/**
 * Cairn's version, the one `GET /api/v1/version` and the API description report: the root package.json's,
 * read at run time so a release bumps one file. This file sits two levels below the package in both src/
 * and dist/, and the package two levels below the repository root.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

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
export function cairnVersion(): string {
  cached ??=
    readVersion(path.resolve(__dirname, '..', '..', '..', 'package.json')) ??
    readVersion(path.resolve(__dirname, '..', 'package.json')) ??
    '0.0.0';
  return cached;
}
