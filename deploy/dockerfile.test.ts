/**
 * The root Dockerfile and .dockerignore, read without a Docker engine: the stages the image is built in, the
 * entry point every deployment file relies on, and that the image holds what each workspace needs at run
 * time (derived from package.json "workspaces", so a new package or data directory is caught).
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  type DockerInstruction,
  type DockerStage,
  METRICS_PORT,
  ROOT,
  WORK_DIR,
  deployedServices,
  imageUid,
  parseDockerfile,
  readRootFile,
  servicePort,
} from './support';

const BASE_IMAGE = 'node:20-bookworm-slim';
const stages = parseDockerfile(readRootFile('Dockerfile'));
const finalStage = stages[stages.length - 1];
const rootPackage = JSON.parse(readRootFile('package.json')) as {
  workspaces: string[];
  packageManager: string;
  engines: { node: string };
  scripts: Record<string, string>;
};

function stage(name: string): DockerStage {
  const found = stages.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`Dockerfile has no stage "${name}"`);
  return found;
}

function instructions(of: DockerStage, keyword: string): string[] {
  return of.instructions.filter((instruction: DockerInstruction) => instruction.keyword === keyword).map((instruction) => instruction.args);
}

/** The image a stage starts from, following earlier stages by name. */
function rootImage(of: DockerStage): string {
  const earlier = stages.find((candidate) => candidate.name === of.from);
  return earlier === undefined ? of.from : rootImage(earlier);
}

/** Whether a stage (or a stage it is built on) has an instruction matching `test`. */
function inherits(of: DockerStage, keyword: string, test: (args: string) => boolean): boolean {
  if (instructions(of, keyword).some(test)) return true;
  const earlier = stages.find((candidate) => candidate.name === of.from);
  return earlier !== undefined && inherits(earlier, keyword, test);
}

/** ENV lines as one map (`KEY=value` pairs). */
function environment(of: DockerStage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of instructions(of, 'ENV')) {
    for (const match of line.matchAll(/(\w+)=("[^"]*"|\S+)/g)) env[match[1]] = match[2].replace(/^"|"$/g, '');
  }
  return env;
}

/** The words of a `for <variable> in <words>; do` loop in the stage's RUN lines. */
function loopWords(of: DockerStage, variable: string): string[] {
  for (const line of instructions(of, 'RUN')) {
    const match = new RegExp(`for ${variable} in ([^;]+);`).exec(line);
    if (match !== null) return match[1].trim().split(' ');
  }
  throw new Error(`no "for ${variable} in …" loop in stage ${of.name}`);
}

/** The workspace package directories (relative), from the root package.json globs. */
function workspaceDirs(): string[] {
  return rootPackage.workspaces.flatMap((glob) => {
    const base = glob.replace(/\/\*$/, '');
    return fs
      .readdirSync(path.join(ROOT, base), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(ROOT, base, entry.name, 'package.json')))
      .map((entry) => `${base}/${entry.name}`);
  });
}

/** Files under `dir` (relative to it), skipping directories named in `skip`. */
function filesUnder(dir: string, skip: readonly string[], prefix = ''): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const relative = `${prefix}${entry.name}`;
    if (!entry.isDirectory()) return [relative];
    return skip.includes(relative) || skip.includes(entry.name) ? [] : filesUnder(path.join(dir, entry.name), skip, `${relative}/`);
  });
}

/**
 * What never runs in the image: TypeScript sources and the JSON they import (both compiled to dist), tests, package
 * and compiler settings, and what only generation and tests read (code generators in `scripts/`, schema locks in
 * `schema/`).
 */
function isBuildOnly(file: string): boolean {
  if (file.startsWith('scripts/') || file.startsWith('schema/') || (file.startsWith('src/') && file.endsWith('.json'))) return true;
  return file.endsWith('.ts') || file === 'package.json' || /^tsconfig[^/]*\.json$/.test(file) || file.endsWith('.tsbuildinfo');
}

/** .dockerignore patterns as a matcher (Docker's rules: a match on a path or any of its parents excludes it). */
function dockerignore(): (file: string) => boolean {
  const patterns = readRootFile('.dockerignore')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  if (patterns.some((pattern) => pattern.startsWith('!'))) throw new Error('this matcher does not read exceptions (!pattern)');
  const regexes = patterns.map((pattern) => {
    const source = pattern
      .replace(/^\/+/, '')
      .split(/(\*\*\/|\*\*|\*|\?)/)
      .map((part) => ({ '**/': '(?:.*/)?', '**': '.*', '*': '[^/]*', '?': '[^/]' })[part] ?? part.replace(/[.+^${}()|[\]\\]/g, '\\$&'))
      .join('');
    return new RegExp(`^${source}$`);
  });
  return (file) => {
    const parts = file.split('/');
    return parts.some((_, index) => regexes.some((regex) => regex.test(parts.slice(0, index + 1).join('/'))));
  };
}

describe('Dockerfile', () => {
  it('builds every stage on the Node LTS slim image the project pins', () => {
    for (const each of stages) expect(rootImage(each)).toBe(BASE_IMAGE);
    const major = /^node:(\d+)-/.exec(BASE_IMAGE)?.[1];
    expect(rootPackage.engines.node).toMatch(new RegExp(`^>=\\s*${major}\\.`));
  });

  it('installs the npm release of package.json "packageManager"', () => {
    const npmVersion = rootPackage.packageManager.replace(/^npm@/, '');
    expect(instructions(stages[0], 'ARG')).toContain(`NPM_VERSION=${npmVersion}`);
    expect(instructions(stages[0], 'RUN').join('\n')).toContain('npm install --global "npm@${NPM_VERSION}"');
  });

  it('gives npm ci what it reads: the manifests of every workspace and the postinstall script', () => {
    const manifests = stage('manifests');
    const copies = instructions(manifests, 'COPY');
    expect(copies).toContain('package.json package-lock.json ./');
    const postinstall = /node (\S+)/.exec(rootPackage.scripts.postinstall)?.[1];
    expect(postinstall).toBeDefined();
    expect(copies.some((copy) => copy.split(' ').includes(String(postinstall)))).toBe(true);
    for (const glob of rootPackage.workspaces) {
      const base = glob.replace(/\/\*$/, '');
      expect(copies).toContain(`${base} ${base}`);
    }
  });

  it('builds with the full dependency tree', () => {
    const build = stage('build');
    const runs = instructions(build, 'RUN');
    expect(runs).toContain('npm ci');
    expect(runs).toContain('npm run build');
    expect(instructions(build, 'COPY')).toEqual(['--from=manifests /src ./', '. .']);
  });

  it('copies the run-time files of every workspace: compiled code and the data it reads', () => {
    const packages = loopWords(stage('build'), 'pkg');
    expect(packages).toEqual(rootPackage.workspaces);
    const parts = loopWords(stage('build'), 'part');
    expect(parts).toContain('dist');
    expect(instructions(finalStage, 'COPY')).toContain('--from=build /runtime/ ./');
    for (const dir of workspaceDirs()) {
      // Anything that is not a TypeScript source, a test or a setting must be in a copied part.
      const missing = filesUnder(path.join(ROOT, dir), ['node_modules', 'dist', '.turbo', 'test'])
        .filter((file) => !isBuildOnly(file))
        .filter((file) => !parts.some((part) => file.startsWith(`${part}/`)));
      expect([dir, missing]).toEqual([dir, []]);
    }
  });

  describe('final stage', () => {
    it('installs production dependencies only, and git', () => {
      const runs = instructions(finalStage, 'RUN');
      expect(runs.some((run) => /\bnpm ci --omit=dev\b/.test(run))).toBe(true);
      expect(runs.some((run) => /\bnpm ci\b/.test(run) && !run.includes('--omit=dev'))).toBe(false);
      const apt = runs.find((run) => run.includes('apt-get install'));
      expect(apt).toMatch(/apt-get install -y --no-install-recommends (\S+ )*git\b/);
      expect(apt).toContain('rm -rf /var/lib/apt/lists/*');
    });

    it('runs as a non-root user, in /app, with the work directory a volume it owns', () => {
      expect(inherits(finalStage, 'WORKDIR', (dir) => dir === '/app')).toBe(true);
      const uid = imageUid(stages);
      expect(uid).toBeDefined();
      expect(uid).not.toBe(0);
      expect(instructions(finalStage, 'VOLUME')).toEqual([`["${WORK_DIR}"]`]);
      // With attachments/ in it, so that the attachments volume compose mounts there starts owned by the user too.
      expect(instructions(finalStage, 'RUN')).toContain(`mkdir -p ${WORK_DIR}/attachments && chown -R ${uid}:${uid} ${WORK_DIR}`);
      // docker-compose's key writer runs as the image user too.
      expect(instructions(finalStage, 'RUN')).toContain(`mkdir /rpc-keys && chown ${uid}:${uid} /rpc-keys`);
      expect(environment(finalStage)).toMatchObject({ NODE_ENV: 'production', CAIRN_WORK_DIR: WORK_DIR });
    });

    it('starts scripts/run-service.js with the gateway by default', () => {
      expect(instructions(finalStage, 'ENTRYPOINT')).toEqual(['["node", "scripts/run-service.js"]']);
      expect(instructions(finalStage, 'CMD')).toEqual(['["gateway"]']);
      expect(instructions(finalStage, 'COPY')).toContain('scripts/run-service.js scripts/health-probe.js scripts/');
    });

    it('exposes every deployed service port and the metrics port', () => {
      const exposed = instructions(finalStage, 'EXPOSE').flatMap((line) => line.split(' ').map(Number));
      for (const name of deployedServices()) expect([name, exposed.includes(servicePort(name))]).toEqual([name, true]);
      expect(exposed).toContain(METRICS_PORT);
    });
  });
});

describe('.dockerignore', () => {
  const ignored = dockerignore();

  it('keeps installed modules and build output out of the build context', () => {
    const generated = [
      'node_modules/x/index.js',
      'libs/rpc/node_modules/x/index.js',
      'libs/rpc/dist/index.js',
      'services/gateway/dist/main.js',
    ];
    for (const file of generated) expect([file, ignored(file)]).toEqual([file, true]);
  });

  it('keeps everything the build reads', () => {
    const needed = [
      'package.json',
      'package-lock.json',
      'tsconfig.base.json',
      'turbo.json',
      'scripts/lockfile-optional.js',
      'scripts/run-service.js',
      'scripts/health-probe.js',
      ...workspaceDirs().flatMap((dir) => [
        `${dir}/package.json`,
        `${dir}/tsconfig.json`,
        ...filesUnder(path.join(ROOT, dir), ['node_modules', 'dist', '.turbo', 'test'])
          .filter((file) => !file.endsWith('.test.ts') && !/^tsconfig\.test\.json$/.test(file))
          .map((file) => `${dir}/${file}`),
      ]),
    ];
    expect(needed.filter(ignored)).toEqual([]);
  });
});
