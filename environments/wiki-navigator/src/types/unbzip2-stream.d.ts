// unbzip2-stream@1 ships no types: a factory of a classic (`through`) duplex stream that decompresses bzip2.
declare module 'unbzip2-stream' {
  import type { Duplex } from 'node:stream';
  function unbzip2Stream(): Duplex;
  export = unbzip2Stream;
}
