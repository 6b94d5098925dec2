/**
 * The command-line flags of this package's benchmark scripts (critic-benchmark.js, critic-probe.js), read one way:
 * a flag with no value or a number that is not one is refused with exit 2 before anything runs.
 */
function flag(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  if (index < 0) return fallback;
  const value = process.argv[index + 1];
  // A flag given last, or followed by another flag, has no value: refused, not read as undefined or as "--seed".
  if (value === undefined || value.startsWith('--')) usageError(`--${name} needs a value.`);
  return value;
}

/** A numeric flag: a typo (`--steps 1o0`) is refused before anything runs, not run as NaN (no steps at all). */
function numberFlag(name, fallback) {
  const text = flag(name, fallback);
  const value = Number(text);
  if (text === undefined || text.trim() === '' || !Number.isFinite(value)) {
    usageError(`--${name} takes a number (got ${JSON.stringify(text)}).`);
  }
  return value;
}

function usageError(message) {
  process.stderr.write(`${message} See --help.\n`);
  process.exit(2);
}

/**
 * Every `--name` but the switches takes a value: checked before anything runs, since some flags are read only
 * after minutes of sampling (a missing value found then is a run lost).
 */
function checkFlags(switches) {
  for (const arg of process.argv.slice(2)) if (arg.startsWith('--') && !switches.includes(arg)) flag(arg.slice(2));
}

module.exports = { flag, numberFlag, usageError, checkFlags };
