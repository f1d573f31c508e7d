/**
 * The end-to-end HTTP client: every `/api/v1` response it sees is validated against Gitea's own API
 * description for that operation and status, so a renamed, missing or mistyped field fails the test, and so
 * does a status the operation does not list unless docs/api.md's table of allowed statuses names it.
 */
import path from 'node:path';
import { loadGiteaApi, readStatusAllowances } from '@cairn/testing';
import { ROOT } from './instance';

export const giteaApi = loadGiteaApi(
  path.join(ROOT, 'services', 'gateway', 'api', 'gitea-api-v1.json'),
  readStatusAllowances(path.join(ROOT, 'docs', 'api.md')),
);

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** JSON-encoded unless it is already a string, bytes or a form (those go as they are, e.g. uploads). */
  body?: unknown;
}

export interface ApiClient {
  request<T = unknown>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
}

export function apiClient(baseUrl: string): ApiClient {
  return {
    async request<T>(method: string, requestPath: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
      const headers: Record<string, string> = { ...options.headers };
      let body: string | Uint8Array | FormData | undefined;
      if (options.body instanceof FormData || options.body instanceof Uint8Array) {
        // fetch writes the multipart boundary itself; bytes say their own type in `headers`.
        body = options.body;
      } else if (options.body !== undefined) {
        body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      const response = await fetch(`${baseUrl}${requestPath}`, { method, headers, body, redirect: 'manual' });
      const text = await response.text();
      let parsed: unknown = text;
      if ((response.headers.get('content-type') ?? '').includes('json') && text !== '') parsed = JSON.parse(text);
      if (requestPath.startsWith('/api/v1/')) {
        giteaApi.expectResponse({ method, path: requestPath, status: response.status, body: parsed === '' ? undefined : parsed });
      }
      return { status: response.status, headers: response.headers, body: parsed as T };
    },
  };
}
