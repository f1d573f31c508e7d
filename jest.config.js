// One jest run over every workspace: TypeScript through @swc/jest (type-checking is `npm run lint`),
// workspace libraries resolved to their sources so unit tests need no build.
/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/libs', '<rootDir>/services', '<rootDir>/e2e'],
  testMatch: ['**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  moduleNameMapper: {
    '^@cairn/proto/(.*)$': '<rootDir>/libs/proto/src/gen/$1',
    '^@cairn/(config|log|db|bus|rpc|http|testing)$': '<rootDir>/libs/$1/src',
  },
  testTimeout: 30000,
};
