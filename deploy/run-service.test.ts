/**
 * scripts/run-service.js, the image's entry point: which names it accepts, and that it runs the service in its
 * own process (so in a container the service is PID 1 and gets SIGTERM itself) with the remaining arguments.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, SERVICES_DIR, deployedServices, loadRunServiceScript } from './support';

const script = loadRunServiceScript();

/** A scratch tree shaped like the image: scripts/run-service.js and services/<name>/... */
function scratchTree(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-run-service-'));
  fs.mkdirSync(path.join(root, 'scripts'));
  fs.copyFileSync(path.join(ROOT, 'scripts', 'run-service.js'), path.join(root, 'scripts', 'run-service.js'));
  return root;
}

function addService(root: string, name: string, main?: string): void {
  const dir = path.join(root, 'services', name);
  fs.mkdirSync(path.join(dir, 'dist'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: `@cairn/${name}` }));
  if (main !== undefined) fs.writeFileSync(path.join(dir, 'dist', 'main.js'), main);
}

// A stand-in service: reports its pid and arguments, then waits for SIGTERM and exits 0 when it comes.
const ECHO_MAIN = `
process.on('SIGTERM', () => { process.stdout.write('stopping on SIGTERM\\n'); process.exit(0); });
process.stdout.write(JSON.stringify({ pid: process.pid, args: process.argv.slice(2), script: process.argv[1] }) + '\\n');
setInterval(() => {}, 1000);
`;

describe('run-service', () => {
  let root: string;
  let child: ChildProcess | undefined;

  beforeEach(() => {
    root = scratchTree();
  });

  afterEach(() => {
    child?.kill('SIGKILL');
    child = undefined;
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('knows every service of this repository, the deployed ones included', () => {
    const known = script.knownServices(SERVICES_DIR);
    for (const name of deployedServices()) expect(known).toContain(name);
    expect(known).toEqual(expect.arrayContaining(['cli', 'supervisor']));
  });

  it('resolves a built service to its dist/main.js', () => {
    addService(root, 'echo', ECHO_MAIN);
    const main = path.join(root, 'services', 'echo', 'dist', 'main.js');
    expect(script.resolveService(path.join(root, 'services'), 'echo')).toEqual({ main });
  });

  it.each([
    [undefined, /usage: run-service\.js <service>.*services: built, unbuilt/],
    ['', /usage/],
    ['nope', /unknown service "nope"; services: built, unbuilt/],
    ['../scripts', /unknown service/],
    ['Built', /unknown service/],
    ['unbuilt', /service "unbuilt" is not built \(no services\/unbuilt\/dist\/main\.js\)/],
  ])('refuses %j naming what exists', (name, message) => {
    addService(root, 'built', ECHO_MAIN);
    addService(root, 'unbuilt');
    const resolved = script.resolveService(path.join(root, 'services'), name);
    expect(resolved.error).toMatch(message);
  });

  it('exits 2 with the list of services on a bad name', () => {
    addService(root, 'built', ECHO_MAIN);
    const run = spawnSync(process.execPath, [path.join(root, 'scripts', 'run-service.js'), 'nope'], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toBe('run-service: unknown service "nope"; services: built\n');
  });

  it('runs the service in its own process with the remaining arguments, and SIGTERM reaches it', async () => {
    addService(root, 'echo', ECHO_MAIN);
    const started = spawn(process.execPath, [path.join(root, 'scripts', 'run-service.js'), 'echo', '--flag', 'value'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child = started;
    let output = '';
    started.stdout?.setEncoding('utf8');
    const firstLine = await new Promise<string>((resolve) => {
      started.stdout?.on('data', (chunk: string) => {
        output += chunk;
        if (output.includes('\n')) resolve(output.slice(0, output.indexOf('\n')));
      });
    });
    expect(JSON.parse(firstLine)).toEqual({
      pid: started.pid,
      args: ['--flag', 'value'],
      script: path.join(root, 'services', 'echo', 'dist', 'main.js'),
    });
    const exit = new Promise<number | null>((resolve) => started.on('exit', (code) => resolve(code)));
    started.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(output).toContain('stopping on SIGTERM');
  });
});
