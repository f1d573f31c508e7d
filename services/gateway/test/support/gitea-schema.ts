/** Gitea's vendored API description, loaded once for the gateway tests (see @cairn/testing's loadGiteaApi). */
import path from 'node:path';
import { loadGiteaApi, readStatusAllowances } from '@cairn/testing';

// The statuses Gitea's description leaves out are allowed from the one table in docs/api.md, as in e2e.
export const giteaApi = loadGiteaApi(
  path.join(__dirname, '..', '..', 'api', 'gitea-api-v1.json'),
  readStatusAllowances(path.join(__dirname, '..', '..', '..', '..', 'docs', 'api.md')),
);

/** Throws unless `value` is a valid `#/definitions/<name>` (every property Gitea always sends present). */
export function expectGiteaSchema(name: string, value: unknown): void {
  const errors = giteaApi.definitionErrors(name, value);
  if (errors.length > 0) throw new Error(`not a valid Gitea ${name}:\n${errors.join('\n')}\n${JSON.stringify(value, null, 2)}`);
}

/** Throws unless `value` is a valid `<name>` with exactly the keys Gitea sends for it. */
export function expectExactGiteaShape(name: string, value: unknown): void {
  giteaApi.expectExactShape(name, value);
}
