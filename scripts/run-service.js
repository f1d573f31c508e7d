#!/usr/bin/env node
// The container's entry point: `node scripts/run-service.js <service> [args…]` runs
// services/<service>/dist/main.js with [args…] as its arguments. It loads the service into this very
// process (no child), so in a container the service is PID 1 and receives SIGTERM directly.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const SERVICES_DIR = path.resolve(__dirname, '..', 'services');
// A plain directory name: nothing that could reach outside services/.
const SERVICE_NAME = /^[a-z0-9][a-z0-9-]*$/;

/** Names of the packages under `servicesDir` (directories holding a package.json), sorted. */
function knownServices(servicesDir) {
  let entries;
  try {
    entries = fs.readdirSync(servicesDir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((entry) => entry.isDirectory() && SERVICE_NAME.test(entry.name))
    .filter((entry) => fs.existsSync(path.join(servicesDir, entry.name, 'package.json')))
    .map((entry) => entry.name)
    .sort();
}

/**
 * The main module to run for `name`: `{ main }`, or `{ error }` saying what is wrong and which services
 * exist.
 */
function resolveService(servicesDir, name) {
  const known = knownServices(servicesDir);
  const choices = known.length > 0 ? known.join(', ') : '(none)';
  if (name === undefined || name === '') {
    return { error: `usage: run-service.js <service> [args…]; services: ${choices}` };
  }
  if (!SERVICE_NAME.test(name) || !known.includes(name)) {
    return { error: `unknown service "${name}"; services: ${choices}` };
  }
  const main = path.join(servicesDir, name, 'dist', 'main.js');
  if (!fs.existsSync(main)) {
    return { error: `service "${name}" is not built (no ${path.relative(path.dirname(servicesDir), main)}); run "npm run build"` };
  }
  return { main };
}

function run(args) {
  const [name, ...rest] = args;
  const resolved = resolveService(SERVICES_DIR, name);
  if (resolved.error !== undefined) {
    process.stderr.write(`run-service: ${resolved.error}\n`);
    process.exit(2);
  }
  // The service reads its own arguments from process.argv, as if started with `node <main> [args…]`.
  process.argv = [process.argv[0], resolved.main, ...rest];
  require(resolved.main);
}

module.exports = { knownServices, resolveService };

if (require.main === module) run(process.argv.slice(2));
