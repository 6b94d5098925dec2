// eslint-disable-next-line @typescript-eslint/no-require-imports
const manifest = require('../package.json') as { name: string; version: string };

/** This package's npm name and version, recorded in env specs and registrations. */
export const PACKAGE_NAME = manifest.name;
export const PACKAGE_VERSION = manifest.version;
