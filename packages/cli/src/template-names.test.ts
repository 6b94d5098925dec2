import { newEnvNames, renameTemplateText, templateNames } from './template-names';

describe('template names', () => {
  it('derives every spelling from a kebab-case name', () => {
    expect(templateNames('wiki-navigator')).toEqual({
      kebab: 'wiki-navigator',
      pascal: 'WikiNavigator',
      camel: 'wikiNavigator',
      upper: 'WIKI_NAVIGATOR',
      envId: 'turngym/wiki-navigator-v1',
      packageName: '@turngym/env-wiki-navigator',
    });
    expect(templateNames('game2048', { contrib: true }).packageName).toBe('turngym-env-game2048');
  });

  it('rejects names that are not kebab-case or carry a version', () => {
    expect(() => templateNames('WikiNavigator')).toThrow(/must be kebab-case/);
    expect(() => templateNames('wiki_navigator')).toThrow(/must be kebab-case/);
    expect(() => templateNames('-wiki')).toThrow(/must be kebab-case/);
    expect(() => templateNames('wiki-v2')).toThrow(/must not carry a version/);
  });

  it('says how to fix an odd name, naming the argument', () => {
    expect(() => templateNames('MyEnv')).toThrow(/Env name "MyEnv" must be kebab-case.*try "my-env"/);
    expect(() => templateNames('my env')).toThrow(/Env name "my env" must be kebab-case.*try "my-env"/);
    expect(() => templateNames('Café Crème')).toThrow(/Env name "Café Crème" must be kebab-case.*try "cafe-creme"/);
    expect(() => templateNames('2048')).toThrow(/Env name "2048" must start with a letter.*e\.g\. game-2048/);
    expect(() => templateNames('@me/env-x')).toThrow(
      /Env name "@me\/env-x" is a package name: pass the env name "x" \(the package becomes @turngym\/env-x, or turngym-env-x with --contrib\)/,
    );
    expect(() => templateNames('turngym-env-x')).toThrow(/is a package name: pass the env name "x"/);
    expect(() => templateNames('env-x')).toThrow(/Env name "env-x" must not start with "env-".*pass "x"/);
    expect(() => newEnvNames('example')).toThrow(/"example" is the template's own name/);
    expect(() => templateNames('a'.repeat(65))).toThrow(/at most 64 characters/);
  });

  it('renames identifiers, file stems, the id and the package, and leaves prose alone', () => {
    const names = templateNames('wiki-navigator');
    const source = [
      "import { validateExampleOptions, type ExampleOptions } from './example-options';",
      'export const EXAMPLE_TOOLS = [];',
      'export const exampleOptionsSchema = {};',
      "class ExampleEnv { id = 'turngym/example-v1'; }",
      "const manifest = { name: '@turngym/env-example' };",
      "const space = { examples: ['LOOKUP(amber-1)'] }; // Example: LOOKUP(amber-17), an example",
    ].join('\n');
    expect(renameTemplateText(source, names)).toBe(
      [
        "import { validateWikiNavigatorOptions, type WikiNavigatorOptions } from './wiki-navigator-options';",
        'export const WIKI_NAVIGATOR_TOOLS = [];',
        'export const wikiNavigatorOptionsSchema = {};',
        "class WikiNavigatorEnv { id = 'turngym/wiki-navigator-v1'; }",
        "const manifest = { name: '@turngym/env-wiki-navigator' };",
        "const space = { examples: ['LOOKUP(amber-1)'] }; // Example: LOOKUP(amber-17), an example",
      ].join('\n'),
    );
    expect(renameTemplateText('example-env.test.ts', names)).toBe('wiki-navigator-env.test.ts');
  });

  it('never renames a replacement again, even when the new name contains "example"', () => {
    const names = templateNames('example-hunt');
    expect(renameTemplateText("ExampleEnv exampleOptionsSchema './example-env'", names)).toBe(
      "ExampleHuntEnv exampleHuntOptionsSchema './example-hunt-env'",
    );
  });
});
