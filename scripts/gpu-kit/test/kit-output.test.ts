import { resolve } from 'node:path';
import { kitOutput } from '../kit-output';

describe('kitOutput', () => {
  it('compresses with xz whatever xz spelling the name uses, as tar xJf on the GPU machine expects', () => {
    expect(kitOutput('/tmp/kit.tar.xz')).toEqual({ path: '/tmp/kit.tar.xz', tarFlag: '-cJf' });
    expect(kitOutput('/tmp/kit.txz').tarFlag).toBe('-cJf');
    expect(kitOutput('/tmp/KIT.TAR.XZ').tarFlag).toBe('-cJf');
  });

  it('compresses with gzip for .tar.gz and .tgz, and defaults to turngym-gpu-kit.tar.gz here', () => {
    expect(kitOutput('/tmp/kit.tgz').tarFlag).toBe('-czf');
    expect(kitOutput()).toEqual({ path: resolve('turngym-gpu-kit.tar.gz'), tarFlag: '-czf' });
  });

  it('refuses a name that says no compression, naming the accepted suffixes', () => {
    for (const name of ['kit.tar', 'kit.xz.tar', 'kit', 'kit.zip']) {
      expect(() => kitOutput(name)).toThrow(`${name}: the kit's name must end in one of .tar.xz, .txz, .tar.gz, .tgz`);
    }
  });
});
