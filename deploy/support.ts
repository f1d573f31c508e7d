/**
 * What the deployment tests share: the services to deploy (read from services/, so a new service without
 * deployment entries fails them), the ports the shared decisions fix, and the container entry point script.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_GRPC_PORTS } from '@cairn/config';

export const ROOT = path.resolve(__dirname, '..');
export const SERVICES_DIR = path.join(ROOT, 'services');

/** Packages under services/ that are not deployed as services of their own. */
export const NOT_DEPLOYED: readonly string[] = ['supervisor', 'cli'];
/** Services that keep data on their own disk: a StatefulSet with a volume claim instead of Deployment + HPA. */
export const STATEFUL_SERVICES: readonly string[] = ['git-storage'];
/** Services that speak HTTP, with their port; every other deployed service speaks gRPC. */
export const HTTP_SERVICES: Readonly<Record<string, number>> = { gateway: 3000 };
export const HTTP_HEALTH_PATH = '/api/healthz';
export const METRICS_PORT = 9464;
export const IMAGE = 'cairn:latest';
export const WORK_DIR = '/data';

/** Every directory under services/ with a package.json, but the ones not deployed; sorted. */
export function deployedServices(): string[] {
  return fs
    .readdirSync(SERVICES_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(SERVICES_DIR, entry.name, 'package.json')))
    .map((entry) => entry.name)
    .filter((name) => !NOT_DEPLOYED.includes(name))
    .sort();
}

export function isGrpcService(name: string): boolean {
  return HTTP_SERVICES[name] === undefined;
}

export function grpcServices(): string[] {
  return deployedServices().filter(isGrpcService);
}

/** The default gRPC port of `name` in @cairn/config, undefined when it has none. */
export function defaultGrpcPort(name: string): number | undefined {
  return (DEFAULT_GRPC_PORTS as Readonly<Record<string, number | undefined>>)[name];
}

/** The port a service serves on in a container: HTTP for the gateway, its default gRPC port otherwise. */
export function servicePort(name: string): number {
  const port = HTTP_SERVICES[name] ?? defaultGrpcPort(name);
  if (port === undefined) throw new Error(`service "${name}" has no port: add it to DEFAULT_GRPC_PORTS in libs/config`);
  return port;
}

export function readRootFile(relative: string): string {
  return fs.readFileSync(path.join(ROOT, relative), 'utf8');
}

/** `host:port` split; the port as a number. */
export function splitHostPort(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':');
  return { host: address.slice(0, colon), port: Number(address.slice(colon + 1)) };
}

/** scripts/run-service.js, the image's entry point (plain JavaScript, no declarations). */
export interface RunServiceScript {
  knownServices(servicesDir: string): string[];
  resolveService(servicesDir: string, name: string | undefined): { main: string; error?: undefined } | { error: string; main?: undefined };
}

export function loadRunServiceScript(): RunServiceScript {
  return require(path.join(ROOT, 'scripts', 'run-service.js')) as RunServiceScript;
}

/** An object read from YAML: only its shape is known. */
export type Node = Record<string, unknown>;

export function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value` as an object, failing the test with `what` when it is not one. */
export function node(value: unknown, what: string): Node {
  if (!isNode(value)) throw new Error(`${what}: expected a mapping, got ${JSON.stringify(value)}`);
  return value;
}

export function nodes(value: unknown, what: string): Node[] {
  if (!Array.isArray(value)) throw new Error(`${what}: expected a list, got ${JSON.stringify(value)}`);
  return value.map((item, index) => node(item, `${what}[${index}]`));
}

export function strings(value: unknown, what: string): string[] {
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    throw new Error(`${what}: expected a list of strings, got ${JSON.stringify(value)}`);
  }
  return value as string[];
}

/** One instruction of a Dockerfile: its keyword (upper case) and the rest of its logical line. */
export interface DockerInstruction {
  keyword: string;
  args: string;
}

export interface DockerStage {
  /** The FROM image or earlier stage name. */
  from: string;
  name: string | undefined;
  instructions: DockerInstruction[];
}

/** Stages of a Dockerfile (comments dropped, `\` continuations joined); ARGs before the first FROM are ignored. */
export function parseDockerfile(text: string): DockerStage[] {
  const logical: string[] = [];
  let current = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    // Docker drops comment and empty lines, also inside a continued instruction.
    if (line === '' || line.startsWith('#')) continue;
    if (line.endsWith('\\')) {
      current += `${line.slice(0, -1)} `;
      continue;
    }
    logical.push(`${current}${line}`.trim());
    current = '';
  }
  const stages: DockerStage[] = [];
  for (const line of logical) {
    const space = line.search(/\s/);
    const keyword = (space < 0 ? line : line.slice(0, space)).toUpperCase();
    const args = space < 0 ? '' : line.slice(space + 1).trim().replace(/\s+/g, ' ');
    if (keyword === 'FROM') {
      const match = /^(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      if (match === null) throw new Error(`cannot read FROM ${args}`);
      stages.push({ from: match[1], name: match[2], instructions: [] });
    } else if (stages.length > 0) {
      stages[stages.length - 1].instructions.push({ keyword, args });
    }
  }
  return stages;
}

/** The numeric uid the image runs as (its last USER), undefined when it does not say one. */
export function imageUid(stages: DockerStage[]): number | undefined {
  const users = stages[stages.length - 1].instructions.filter((instruction) => instruction.keyword === 'USER');
  const user = users.at(-1)?.args.split(':')[0];
  return user !== undefined && /^\d+$/.test(user) ? Number(user) : undefined;
}
