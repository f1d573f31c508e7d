#!/usr/bin/env node
// `npm run generate`: the payload JSON Schemas from src/payloads.ts (the types the hooks builders are checked
// against), written to src/gen/payload-schemas.json. scripts/test.js fails when the committed file is stale.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { createGenerator } = require('ts-json-schema-generator');

const root = path.resolve(__dirname, '..');
const generator = createGenerator({
  path: path.join(root, 'src/payloads.ts'),
  tsconfig: path.join(root, 'tsconfig.schema.json'),
  type: '*',
  expose: 'export',
  topRef: false,
  // Consumers must accept fields a later payload adds (docs/contributing.md): no `additionalProperties: false`.
  additionalProperties: true,
  jsDoc: 'basic',
  sortProps: false,
  // `npm run build` type-checks payloads.ts; the schema only needs its shapes.
  skipTypeCheck: true,
});
const schema = generator.createSchema('*');
const out = path.join(root, 'src/gen/payload-schemas.json');
fs.rmSync(path.dirname(out), { recursive: true, force: true });
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, `${JSON.stringify(schema, null, 2)}\n`);
