/**
 * @cairn/http: what the gateway needs to speak Gitea's HTTP API, without any HTTP framework: error
 * bodies and statuses, paging headers, token scopes, request-body binding and Go-compatible JSON.
 */
export * from './errors';
export * from './status';
export * from './go-query';
export * from './pagination';
export * from './scopes';
export * from './binding';
export * from './json';
