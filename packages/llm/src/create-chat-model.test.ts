import { CachedChatModel } from './cached-chat-model';
import { ChatModelSpecError } from './chat-model-spec-error';
import { createChatModel, listChatModelProviders, registerChatModelProvider } from './create-chat-model';
import { OpenAIChatModel } from './openai-chat-model';
import { ScriptedChatModel } from './scripted-chat-model';

describe('createChatModel', () => {
  it('builds a scripted model, echoing by default', async () => {
    const model = createChatModel('scripted');
    expect(model).toBeInstanceOf(ScriptedChatModel);
    expect((await model.complete({ messages: [{ role: 'user', content: 'ping' }] })).message.content).toBe('ping');
    const named = createChatModel('scripted:buyer', { script: ['deal'] });
    expect(named.id).toBe('scripted:buyer');
    expect((await named.complete({ messages: [] })).message.content).toBe('deal');
  });

  it('builds an OpenAI-compatible model, keeping colons in the model name', () => {
    const model = createChatModel('openai:llama3.1:8b', {
      openai: { baseURL: 'http://127.0.0.1:11434/v1' },
      environment: {},
    });
    expect(model).toBeInstanceOf(OpenAIChatModel);
    expect(model.id).toBe('openai:llama3.1:8b');
    expect((model as OpenAIChatModel).options).toMatchObject({
      model: 'llama3.1:8b',
      baseURL: 'http://127.0.0.1:11434/v1',
    });
    const fromEnvironment = createChatModel('openai', {
      environment: { OPENAI_MODEL: 'qwen', OPENAI_BASE_URL: 'http://h:8000/v1' },
    });
    expect(fromEnvironment.id).toBe('openai:qwen');
  });

  it('reads a sloppily typed spec as meant: spaces around the name, a capitalised prefix named', () => {
    const model = createChatModel(' openai : gpt-4o-mini ', {
      openai: { baseURL: 'http://127.0.0.1:11434/v1' },
      environment: {},
    });
    expect(model.id).toBe('openai:gpt-4o-mini');
    expect((model as OpenAIChatModel).options.model).toBe('gpt-4o-mini');
    expect(() => createChatModel('OpenAI:gpt-4o-mini')).toThrow(/Prefixes are lowercase: "openai:gpt-4o-mini"\./);
  });

  it('wraps the model in a cache on request', () => {
    const model = createChatModel('scripted', { cache: { path: '/tmp/never-written.jsonl' } });
    expect(model).toBeInstanceOf(CachedChatModel);
    expect((model as CachedChatModel).options.path).toBe('/tmp/never-written.jsonl');
  });

  it('says how to get local checkpoints when @turngym/lm has not registered them', () => {
    expect(() => createChatModel('local:./checkpoints/step-100')).toThrow(ChatModelSpecError);
    expect(() => createChatModel('local:./checkpoints/step-100')).toThrow(
      /registerLocalChatModelProvider\(\) from @turngym\/lm.*turngym serve-model/,
    );
    expect(() => createChatModel('local')).toThrow(/needs a name after the colon: local:<checkpoint>/);
  });

  it('names the known forms for an unknown spec', () => {
    expect(() => createChatModel('anthropic:claude')).toThrow(
      'Unknown chat model spec "anthropic:claude". Known forms: scripted[:<name>], openai:<model>, local:<checkpoint>.',
    );
  });

  it('lets a package register a provider (the tfjs LM as local:<checkpoint>)', async () => {
    const restore = registerChatModelProvider(
      'local',
      (checkpoint) => new ScriptedChatModel(['from weights'], { id: `local:${checkpoint}` }),
      {
        usage: 'local:<checkpoint>',
      },
    );
    try {
      const model = createChatModel('local:ckpt-7');
      expect(model.id).toBe('local:ckpt-7');
      expect((await model.complete({ messages: [] })).message.content).toBe('from weights');
      expect(() => registerChatModelProvider('local', () => new ScriptedChatModel())).toThrow(
        /already registered for "local:"; pass \{ replace: true \}/,
      );
    } finally {
      restore();
    }
    expect(() => createChatModel('local:ckpt-7')).toThrow(/registerLocalChatModelProvider/);

    const restoreNew = registerChatModelProvider('echo2', () => new ScriptedChatModel());
    expect(listChatModelProviders().map((provider) => provider.usage)).toContain('echo2:<name>');
    restoreNew();
    expect(() => createChatModel('echo2:x')).toThrow(/Unknown chat model spec/);
    expect(() => registerChatModelProvider('Bad Prefix', () => new ScriptedChatModel())).toThrow(
      /Invalid chat model provider prefix/,
    );
  });
});
