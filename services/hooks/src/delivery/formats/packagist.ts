/**
 * The packagist type (services/webhook/packagist.go): asks Packagist to update the package. The hook's URL is
 * Packagist's update-package API (with username and token); the body names the package by its `package_url`
 * setting on a push. Gitea sends the same body with an empty URL for every other event.
 */
import { type Convertor, convert, jsonRequest } from './text';
import type { Renderer } from './types';

interface PackagistMessage {
  repository: { url: string };
}

function packagistConvertor(packageURL: string): Convertor<PackagistMessage> {
  const empty = (): PackagistMessage => ({ repository: { url: '' } });
  return {
    create: empty,
    delete: empty,
    fork: empty,
    push: () => ({ repository: { url: packageURL } }),
    issue: empty,
    issueComment: empty,
    pullRequest: empty,
    review: empty,
    repository: empty,
    release: empty,
    wiki: empty,
    status: empty,
  };
}

export const renderPackagist: Renderer = (hook, content) => jsonRequest(hook, convert(packagistConvertor(hook.meta['package_url'] ?? ''), content));
