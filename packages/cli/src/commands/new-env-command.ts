import { isAbsolute, relative } from 'node:path';
import type { Command } from 'commander';
import type { CliContext } from '../cli-context';
import { writeLine } from '../cli-io';
import { checkOutputDirectory, checkWritable } from '../output-paths';
import { formatWithProjectPrettier } from '../format-generated';
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
    .action(async (name: string, options: NewEnvOptions) => {
      checkOutputDirectory('--dir', options.dir);
      checkWritable('--dir', options.dir);
      const result = scaffoldEnv({ name, parentDirectory: options.dir, ...(options.contrib ? { contrib: true } : {}) });
      const nearby = relative(process.cwd(), result.directory);
      const shown = nearby === '' ? '.' : nearby.startsWith('..') || isAbsolute(nearby) ? result.directory : nearby;
      const out = context.io.stdout;
      const formatted = await formatWithProjectPrettier(result.directory, result.files);
      writeLine(out, `Created ${result.names.packageName} (${result.names.envId}) in ${shown}:`);
      for (const file of result.files) writeLine(out, `  ${file}`);
      if (formatted) writeLine(out, "(formatted with the project's prettier)");
      writeLine(out, '\nNext:');
      if (result.monorepoRoot) {
        writeLine(
          out,
          `  add { "path": "${relative(result.monorepoRoot, result.directory).split('\\').join('/')}" } to tsconfig.build.json, then npm install (links the workspace)`,
        );
        // The CLI is the monorepo's workspace bin, on no PATH: npx finds it.
        writeLine(out, `  npx tsc -b ${shown} && npx turngym check ${result.names.envId}`);
        writeLine(
          out,
          `  npx jest ${relative(result.monorepoRoot, result.directory).split('\\').join('/')}   (its tests, from the repository root)`,
        );
      } else {
        // Each line runs where the one before left off: after the cd, the package is the current directory.
        writeLine(out, `  cd ${shown} && npm install && npm run build`);
        writeLine(out, `  ${result.cli} --plugin . check ${result.names.envId}`);
        writeLine(out, `  npm test   (its tests, in ${shown})`);
      }
    });
}
