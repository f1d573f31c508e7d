// One jest run over every workspace: TypeScript through @swc/jest (type-checking is `npm run lint`),
// workspace libraries resolved to their sources so unit tests need no build.
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/libs', '<rootDir>/services', '<rootDir>/e2e', '<rootDir>/deploy', '<rootDir>/bench', '<rootDir>/docs'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  moduleNameMapper: {
    // slonik 47 requires p-limit 6, which is ESM-only; jest on Node 20 cannot require it, so use the CJS copy.
    '^p-limit$': '<rootDir>/node_modules/p-limit',
    '^@cairn/proto/(.*)$': '<rootDir>/libs/proto/src/gen/$1',
    '^@cairn/(config|log|db|bus|rpc|http|testing|metrics|service|text|storage|outbound|gitea-json|migration|events)$': '<rootDir>/libs/$1/src',
  },
  setupFiles: ['<rootDir>/jest.setup.ts'],
  testTimeout: 30000,
};
