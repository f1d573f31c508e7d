import { giteaDescription } from '../swagger/document';
import { ApiRegistry } from './registry';
import { json } from './types';

const handler = async () => json(200, {});

describe('ApiRegistry', () => {
  it("takes the operation from Gitea's description", () => {
    const api = new ApiRegistry(giteaDescription());
    api.route({ method: 'get', path: '/version', operationId: 'getVersion', auth: 'optional', handler });
    expect(api.routes[0].operation).toBe(giteaDescription().paths['/version']?.get);
  });

  it('refuses an operationId that does not match the description', () => {
    const api = new ApiRegistry(giteaDescription());
    expect(() => api.route({ method: 'get', path: '/version', operationId: 'version', auth: 'optional', handler })).toThrow(
      /operationId version does not match the description's getVersion/,
    );
  });

  it('refuses a route Gitea does not describe unless it brings its own operation', () => {
    const api = new ApiRegistry(giteaDescription());
    expect(() => api.route({ method: 'get', path: '/cairn/health', operationId: 'cairnHealth', auth: 'optional', handler })).toThrow(
      /not in Gitea's API description/,
    );
    const operation = { operationId: 'cairnHealth', tags: ['miscellaneous'], responses: { '200': { description: 'OK' } } };
    api.route({ method: 'get', path: '/cairn/health', operationId: 'cairnHealth', auth: 'optional', operation, handler });
    const description = api.describe('9.9.9');
    expect(description.paths['/cairn/health']?.get).toEqual(operation);
    expect(description.info.version).toBe('9.9.9');
  });

  it('refuses the same route twice', () => {
    const api = new ApiRegistry(giteaDescription());
    api.route({ method: 'get', path: '/version', operationId: 'getVersion', auth: 'optional', handler });
    expect(() => api.route({ method: 'get', path: '/version', operationId: 'getVersion', auth: 'optional', handler })).toThrow(/twice/);
  });

  it('carries only the definitions and responses the routes reach, transitively', () => {
    const api = new ApiRegistry(giteaDescription());
    api.route({ method: 'get', path: '/version', operationId: 'getVersion', auth: 'optional', handler });
    const description = api.describe('1.0.0');
    expect(Object.keys(description.responses ?? {})).toEqual(['ServerVersion']);
    expect(Object.keys(description.definitions ?? {})).toEqual(['ServerVersion']);
  });
});
