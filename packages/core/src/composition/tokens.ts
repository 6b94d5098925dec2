/** Injection tokens of the composition layer (core + cli). Symbols, so names cannot collide. */
export const TOKENS = {
  Registry: Symbol.for('turngym.Registry'),
  Logger: Symbol.for('turngym.Logger'),
  PluginLoader: Symbol.for('turngym.PluginLoader'),
} as const;
