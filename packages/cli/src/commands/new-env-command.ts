import { isAbsolute, relative } from 'node:path';
import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import { writeLine } from '../cli-io';
import { checkOutputDirectory } from '../output-paths';
import { scaffoldEnv } from '../scaffold-env';

interface NewEnvOptions {
  dir: string;
  contrib?: boolean;
}

export function registerNewEnvCommand(program: Command, context: CliContext): void {
  program
    .command('new-env')
    .description(
      'scaffold an environment package from the template (a working env with tools, options, a scripted solver and tests)',
    )
    .argument('<name>', 'kebab-case name, e.g. math-thought (id turngym/<name>-v1)')
    .option('--dir <directory>', 'parent directory of the new package', 'environments')
    .option('--contrib', 'name the package turngym-env-<name> instead of @turngym/env-<name>')
    .action((name: string, options: NewEnvOptions) => {
      checkOutputDirectory('--dir', options.dir);
      const result = scaffoldEnv({ name, parentDirectory: options.dir, ...(options.contrib ? { contrib: true } : {}) });
      const nearby = relative(process.cwd(), result.directory);
      const shown = nearby === '' ? '.' : nearby.startsWith('..') || isAbsolute(nearby) ? result.directory : nearby;
      const out = context.io.stdout;
      writeLine(out, `Created ${result.names.packageName} (${result.names.envId}) in ${shown}:`);
      for (const file of result.files) writeLine(out, `  ${file}`);
      writeLine(out, '\nNext:');
      if (result.monorepoRoot) {
        writeLine(
          out,
          `  add { "path": "${relative(result.monorepoRoot, result.directory).split('\\').join('/')}" } to tsconfig.build.json, then npm install (links the workspace)`,
        );
        writeLine(out, `  npx tsc -b ${shown} && turngym check ${result.names.envId}`);
        writeLine(
          out,
          `  npx jest ${relative(result.monorepoRoot, result.directory).split('\\').join('/')}   (its tests, from the repository root)`,
        );
      } else {
        // Each line runs where the one before left off: after the cd, the package is the current directory.
        writeLine(out, `  cd ${shown} && npm install && npm run build`);
        writeLine(out, `  turngym --plugin . check ${result.names.envId}`);
        writeLine(out, `  npm test   (its tests, in ${shown})`);
      }
    });
}
