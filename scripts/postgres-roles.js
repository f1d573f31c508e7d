#!/usr/bin/env node
// Gives every Cairn service its own PostgreSQL role that can use only its own schema (@cairn/db roles.ts): run once
// per database, as its owner or a superuser, before the services start with their own `[database] URL`, and again to
// change passwords. `npm run postgres-roles` with
//   CAIRN_DB_ADMIN_URL=postgres://postgres:…@host:5432/cairn
//   CAIRN_DB_PASSWORD_<SERVICE>=…   (one per service below, e.g. CAIRN_DB_PASSWORD_GIT_STORAGE)
// The roles are cairn_<schema> (cairn_accounts, cairn_git_storage, …); each service then connects with
// postgres://cairn_<schema>:<password>@host:5432/cairn.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
/** Packages under services/ that are no service with a schema of its own. */
const NOT_SERVICES = ['supervisor', 'cli'];

/** Every service with a DATABASE_SCHEMA, in the order of services/. */
function servicesWithSchema() {
  return fs
    .readdirSync(path.join(ROOT, 'services'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !NOT_SERVICES.includes(entry.name))
    .map((entry) => entry.name)
    .sort()
    .map((name) => ({ name, schema: require(`@cairn/${name}`).DATABASE_SCHEMA }))
    .filter((service) => typeof service.schema === 'string');
}

function passwordVariable(service) {
  return `CAIRN_DB_PASSWORD_${service.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

async function main() {
  const { provisionServiceRoles, serviceRoleName } = require('@cairn/db');
  const adminUrl = process.env.CAIRN_DB_ADMIN_URL;
  const services = servicesWithSchema();
  const missing = services.map((service) => passwordVariable(service.name)).filter((variable) => !process.env[variable]);
  if (!adminUrl || missing.length > 0) {
    process.stderr.write(`postgres-roles: set CAIRN_DB_ADMIN_URL and ${missing.join(', ') || 'the passwords'} (see the top of ${path.relative(ROOT, __filename)})\n`);
    process.exit(2);
  }
  const roles = services.map((service) => ({
    role: serviceRoleName(service.schema),
    password: process.env[passwordVariable(service.name)],
    schema: service.schema,
  }));
  await provisionServiceRoles(adminUrl, roles);
  for (const role of roles) process.stdout.write(`role ${role.role} owns schema ${role.schema}\n`);
}

module.exports = { servicesWithSchema, passwordVariable };

if (require.main === module) {
  main().catch((error) => {
    process.stderr.write(`postgres-roles: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
