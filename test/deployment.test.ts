import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { REPO_ROOT, runBuiltCli } from './helpers/run-built-cli';

// The deployment files users run (Dockerfile, deploy/compose.yaml, deploy/kubernetes.yaml) are held to the CLI
// they start: every serve command line in them parses with `turngym serve`'s flags and names registered envs,
// and the health checks ask the port the server listens on. Building the image and running its health check
// needs a container runtime: that test is defined only where one answers (or where TURNGYM_REQUIRE_CONTAINER=1
// says it must), and this file says on stderr why it did not run, so CI without a runtime stays green without
// pretending to have built anything.

const read = (file: string): string => readFileSync(join(REPO_ROOT, file), 'utf8');

/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
function instructions(dockerfile: string): { keyword: string; rest: string }[] {
  return dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [keyword = '', ...rest] = line.split(/\s+/);
      return { keyword: keyword.toUpperCase(), rest: rest.join(' ') };
    });
}

interface ServeLine {
  readonly where: string;
  readonly args: string[];
}

/** Every `serve …` command line the deployment files run. */
function serveLines(): ServeLine[] {
  const docker = instructions(read('Dockerfile'));
  const cmd = docker.filter((step) => step.keyword === 'CMD').at(-1);
  const compose = parse(read('deploy/compose.yaml')) as { services: Record<string, { command?: string[] }> };
  const kube = parseAllDocuments(read('deploy/kubernetes.yaml')).map((doc) => doc.toJSON() as Record<string, any>);
  const statefulSet = kube.find((doc) => doc.kind === 'StatefulSet');
  return [
    { where: 'Dockerfile CMD', args: JSON.parse(cmd?.rest ?? '[]') as string[] },
    { where: 'compose env-server', args: compose.services['env-server']?.command ?? [] },
    { where: 'kubernetes StatefulSet', args: statefulSet?.spec.template.spec.containers[0].args ?? [] },
  ];
}

function flagValue(args: readonly string[], flag: string): string | undefined {
  const index = args.indexOf(flag);
  return index >= 0 ? args[index + 1] : undefined;
}

function containerRuntime(): { command?: string; why: string } {
  const tried: string[] = [];
  for (const command of ['docker', 'podman']) {
    const info = spawnSync(command, ['info'], { encoding: 'utf8', timeout: 20_000 });
    if (info.status === 0) return { command, why: `${command} answers` };
    tried.push(
      `${command}: ${info.error ? 'not installed' : (info.stderr.trim().split('\n').at(-1) ?? `exit ${info.status}`)}`,
    );
  }
  return { why: tried.join('; ') };
}

const runtime = containerRuntime();
const requireContainer = process.env.TURNGYM_REQUIRE_CONTAINER === '1';
if (!runtime.command && !requireContainer) {
  process.stderr.write(
    `deployment.test.ts: no container runtime here (${runtime.why}): the image build and health-check test is not run; ` +
      'set TURNGYM_REQUIRE_CONTAINER=1 to make that a failure\n',
  );
}

describe('deployment files', () => {
  it('run `turngym serve` with flags it has, envs it knows, on the port their health checks ask', async () => {
    const help = await runBuiltCli(['serve', '--help']);
    expect(help.code).toBe(0);
    const flags = new Set(help.stdout.match(/--[a-z-]+/g));
    const listed = await runBuiltCli(['list']);
    expect(listed.code).toBe(0);
    const lines = serveLines();
    for (const { where, args } of lines) {
      expect([where, args[0]]).toEqual([where, 'serve']);
      const ids = args.slice(
        1,
        args.findIndex((arg) => arg.startsWith('--')),
      );
      expect([where, ids.length > 0]).toEqual([where, true]);
      for (const id of ids) expect([where, listed.stdout]).toEqual([where, expect.stringContaining(id)]);
      for (const arg of args.filter((a) => a.startsWith('--'))) expect([where, flags.has(arg)]).toEqual([where, true]);
      // Reachable from outside the container, on the port everything else names.
      expect([where, flagValue(args, '--host'), flagValue(args, '--port')]).toEqual([where, '0.0.0.0', '8000']);
    }

    const docker = instructions(read('Dockerfile'));
    const run = docker.filter((step) => step.keyword === 'RUN').map((step) => step.rest);
    expect(run.some((step) => /apt-get install .*\bchromium\b/.test(step))).toBe(true);
    expect(docker.find((step) => step.keyword === 'EXPOSE')?.rest).toBe('8000');
    expect(docker.find((step) => step.keyword === 'HEALTHCHECK')?.rest).toContain('http://127.0.0.1:8000/health');
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
    for (const from of docker.filter((step) => step.keyword === 'FROM')) {
      expect(`${from.rest} for engines ${engines}`).toMatch(/^node:20\b/);
    }
    // The entry point runs the built CLI the build stage makes.
    expect(docker.find((step) => step.keyword === 'ENTRYPOINT')?.rest).toContain('/app/packages/cli/dist/bin.js');

    const kube = parseAllDocuments(read('deploy/kubernetes.yaml')).map((doc) => doc.toJSON() as Record<string, any>);
    const container = kube.find((doc) => doc.kind === 'StatefulSet')?.spec.template.spec.containers[0];
    expect(container.readinessProbe.httpGet.path).toBe('/health');
    expect(container.ports[0].containerPort).toBe(8000);
    expect(kube.filter((doc) => doc.kind === 'Service').map((doc) => doc.spec.ports[0].targetPort)).toEqual([
      8000, 8000,
    ]);
    const compose = parse(read('deploy/compose.yaml')) as { services: Record<string, any> };
    expect(compose.services['env-server'].build.dockerfile).toBe('Dockerfile');
  });

  const buildTest = runtime.command || requireContainer ? it : undefined;
  buildTest?.(
    `builds the image and its health check answers (${runtime.why})`,
    async () => {
      const command = runtime.command;
      if (!command) throw new Error(`TURNGYM_REQUIRE_CONTAINER=1 but no container runtime answers: ${runtime.why}`);
      const tag = 'turngym-env-server:test';
      const built = spawnSync(command, ['build', '-t', tag, '.'], { cwd: REPO_ROOT, encoding: 'utf8' });
      expect([built.status, built.stderr.slice(-2000)]).toEqual([0, expect.any(String)]);
      const started = spawnSync(
        command,
        ['run', '-d', '-P', tag, 'serve', 'turngym/example-v1', '--host', '0.0.0.0', '--port', '8000'],
        {
          encoding: 'utf8',
        },
      );
      expect(started.status).toBe(0);
      const id = started.stdout.trim();
      try {
        const port = spawnSync(command, ['port', id, '8000/tcp'], { encoding: 'utf8' }).stdout.trim().split(':').at(-1);
        // The server needs a few seconds to start: ask until it answers or the image's own start period is over.
        let body: unknown;
        for (let attempt = 0; attempt < 60 && body === undefined; attempt += 1) {
          body = await fetch(`http://127.0.0.1:${port}/health`).then(
            (response) => (response.ok ? response.json() : undefined),
            () => new Promise((resolve) => setTimeout(() => resolve(undefined), 500)),
          );
        }
        expect(body).toEqual({ status: 'healthy' });
        // The image's own HEALTHCHECK runs the same request inside the container.
        const inside = spawnSync(
          command,
          [
            'exec',
            id,
            'node',
            '-e',
            "fetch('http://127.0.0.1:8000/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))",
          ],
          { encoding: 'utf8' },
        );
        expect(inside.status).toBe(0);
      } finally {
        spawnSync(command, ['rm', '-f', id]);
      }
    },
    20 * 60_000,
  );
});
