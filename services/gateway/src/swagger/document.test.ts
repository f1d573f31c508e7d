import { type SwaggerDocument, buildApiDescription } from './document';

const source: SwaggerDocument = {
  swagger: '2.0',
  info: { title: 'Gitea API', version: '1.26.3', license: { name: 'MIT' } },
  basePath: '/api/v1',
  schemes: ['https', 'http'],
  consumes: ['application/json'],
  produces: ['application/json'],
  paths: {},
  definitions: {
    A: { type: 'object', properties: { b: { $ref: '#/definitions/B' } } },
    B: { type: 'object', properties: { c: { type: 'array', items: { $ref: '#/definitions/C' } } } },
    C: { type: 'object' },
    Unused: { type: 'object' },
  },
  responses: { AResponse: { description: 'A', schema: { $ref: '#/definitions/A' } }, unused: { description: 'x' } },
  securityDefinitions: { BasicAuth: { type: 'basic' } },
  security: [{ BasicAuth: [] }],
};

describe('buildApiDescription', () => {
  const operation = { operationId: 'getA', responses: { '200': { $ref: '#/responses/AResponse' } } };

  it('follows references transitively and leaves the rest out', () => {
    const doc = buildApiDescription(source, [{ method: 'get', path: '/a', operation }], '0.1.0');
    expect(Object.keys(doc.responses ?? {})).toEqual(['AResponse']);
    expect(Object.keys(doc.definitions ?? {})).toEqual(['A', 'B', 'C']);
    expect(doc.paths).toEqual({ '/a': { get: operation } });
    expect(doc.securityDefinitions).toEqual(source.securityDefinitions);
    expect(doc.basePath).toBe('/api/v1');
    expect(doc.info).toMatchObject({ title: 'Cairn API', version: '0.1.0', license: { name: 'MIT' } });
  });

  it('fails on a reference that resolves to nothing', () => {
    const broken = { operationId: 'x', responses: { '200': { $ref: '#/responses/Missing' } } };
    expect(() => buildApiDescription(source, [{ method: 'get', path: '/x', operation: broken }], '0.1.0')).toThrow(
      /unresolved reference #\/responses\/Missing/,
    );
  });
});
