/** The value after `--<name>` on the command line, if given: the learning scripts' one flag reader. */
export function flag(name: string): string | undefined {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? process.argv[index + 1] : undefined;
}
