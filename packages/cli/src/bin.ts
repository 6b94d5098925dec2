#!/usr/bin/env node
import 'reflect-metadata';
import { runCli } from './program';

// Exit explicitly once the command is done: an HTTP keep-alive agent or a stdin reader must not keep a
// finished command alive. Writes to pipes and files are synchronous on POSIX, so nothing is lost.
void runCli(process.argv.slice(2)).then((code) => {
  process.exit(code);
});
