import { PreflightError } from '@turngym/leaderboard';
import { ChatModelAgent, LLMCallError, ScriptedChatModel, type ChatRequest } from '@turngym/llm';
import type { AgentEpisodeStart } from '@turngym/spec';
import { PlanActChatAgent } from './plan-act-chat-agent';
import { parsePlanActAgentSpec, planActSuiteAgent } from './plan-act-suite-agent';

const episode = { seed: 3, info: { instructions: 'Solve it.' }, spec: {} } as unknown as AgentEpisodeStart<unknown>;

describe('PlanActChatAgent', () => {
  it('runs role turns until one reaches the env: actor actions, a report back, the planner’s FINAL answer', async () => {
    const seen: { role: string; messages: ChatRequest['messages'] }[] = [];
    const record = (replies: string[]) =>
      new ScriptedChatModel((request, index) => {
        seen.push({ role: request.role ?? '', messages: request.messages });
        return replies[index] ?? 'REPORT nothing';
      });
    const planner = record(['Add 2 and 3.', 'FINAL Answer: 5']);
    const actor = record(['2 + 3 = 5', 'REPORT 5']);
    const agent = new PlanActChatAgent({ planner, actor });
    await agent.start(episode);
    // First act: the planner's sub-task, then the actor's first action goes to the env.
    expect(await agent.act('What is 2 + 3?', {})).toBe('2 + 3 = 5');
    // Second act: the actor reports back (history only), the planner answers: its FINAL action goes to the env.
    expect(await agent.act('', {})).toBe('Answer: 5');
    expect(agent.turns.map((turn) => [turn.role, turn.envAction ?? null])).toEqual([
      ['planner', null],
      ['actor', '2 + 3 = 5'],
      ['actor', null],
      ['planner', 'Answer: 5'],
    ]);
    expect(seen.map((call) => call.role)).toEqual(['planner', 'actor', 'actor', 'planner']);
    // One conversation: every call extends the previous call's messages (a shared prefix for the KV cache).
    for (let i = 1; i < seen.length; i++) {
      expect(seen[i]!.messages.slice(0, seen[i - 1]!.messages.length)).toEqual(seen[i - 1]!.messages);
    }
    expect(seen[0]!.messages[0]).toMatchObject({ role: 'system' });
    expect(seen[0]!.messages[0]!.content).toContain('Solve it.');
    expect(seen[0]!.messages.at(-1)).toEqual({ role: 'user', content: 'What is 2 + 3?\n\nPlan:' });
    expect(seen[1]!.messages.at(-1)).toEqual({ role: 'user', content: 'Act:' });
  });

  it('leaves the env’s instructions and the protocol out with instructions: false, as the trainer’s rollouts are', async () => {
    const seen: ChatRequest['messages'][] = [];
    const model = new ScriptedChatModel((request) => {
      seen.push(request.messages);
      return 'FINAL Answer: 5';
    });
    const bare = new PlanActChatAgent({ planner: model, actor: model }, { instructions: false });
    await bare.start(episode);
    await bare.act('What is 2 + 3?', {});
    expect(seen[0]).toEqual([{ role: 'user', content: 'What is 2 + 3?\n\nPlan:' }]);
    const told = new PlanActChatAgent(
      { planner: model, actor: model },
      { instructions: false, systemPrompt: 'Be brief.' },
    );
    await told.start(episode);
    await told.act('What is 2 + 3?', {});
    expect(seen[1]![0]).toEqual({ role: 'system', content: 'Be brief.' });
  });

  it('hands the env a role’s text once the role is past its turn cap, so the env’s turn limit ends the episode', async () => {
    const planner = new ScriptedChatModel(() => 'think more');
    const actor = new ScriptedChatModel(() => 'REPORT nothing yet');
    const agent = new PlanActChatAgent({ planner, actor }, { plannerMaxTurns: 2 });
    await agent.start(episode);
    expect(await agent.act('task', {})).toBe('think more');
    expect(agent.turns.map((turn) => turn.role)).toEqual(['planner', 'actor', 'planner']);
  });
});

describe('PlanActChatAgent reads a reply as the suite’s single chat agent does', () => {
  const thinking = `<think>${'weigh it. '.repeat(40)}</think>FINAL Answer: 5`;

  it('fails the episode on a reply cut at maxTokens before any answer, as ChatModelAgent does (no-answer)', async () => {
    // Both agents with maxTokens 8: the reply is cut inside its reasoning (finish reason length).
    const single = new ChatModelAgent(new ScriptedChatModel(() => thinking), { maxTokens: 8 });
    await single.start({ ...episode, spec: { actionSpace: { type: 'text' } } } as typeof episode);
    await expect(single.act('What is 2 + 3?', {})).rejects.toMatchObject({ failure: 'no-answer' });

    const model = new ScriptedChatModel(() => thinking);
    const agent = new PlanActChatAgent({ planner: model, actor: model }, { maxTokens: 8 });
    await agent.start(episode);
    // Was the planner's cut reasoning "<think>weigh it. …" taken as a sub-task, then the actor's as the env action.
    const error = await agent.act('What is 2 + 3?', {}).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LLMCallError);
    expect(error).toMatchObject({ failure: 'no-answer', code: 'LLM_CALL' });
    expect((error as Error).message).toMatch(/planner's turn 1: the reply was cut at the token limit \(maxTokens 8\)/);
    // An empty reply cut at the limit, with no reasoning, is no answer either.
    const empty = new ScriptedChatModel(() => ({ content: '', finishReason: 'length' }));
    const cut = new PlanActChatAgent({ planner: empty, actor: empty });
    await cut.start(episode);
    await expect(cut.act('What is 2 + 3?', {})).rejects.toThrow(
      /the reply was cut at the token limit before any answer/,
    );
  });

  it('reads the protocol from the answer after the reasoning, and keeps the reply whole in the history', async () => {
    const seen: ChatRequest['messages'][] = [];
    const model = new ScriptedChatModel((request) => {
      seen.push(request.messages);
      return '<think>FINAL 7 would be wrong</think>FINAL Answer: 5';
    });
    const agent = new PlanActChatAgent({ planner: model, actor: model });
    await agent.start(episode);
    // Was "<think>FINAL 7 would be wrong</think>FINAL Answer: 5" read as a sub-task (no FINAL at its start).
    expect(await agent.act('What is 2 + 3?', {})).toBe('Answer: 5');
    expect(agent.messages.at(-1)).toEqual({
      role: 'assistant',
      content: '<think>FINAL 7 would be wrong</think>FINAL Answer: 5',
    });
  });
});

describe('plan-act agent specs', () => {
  it('reads a role each, or one model for both, and names what is wrong', () => {
    expect(parsePlanActAgentSpec('plan-act:planner=openai:llama3.1:8b,actor=local:./ckpt')).toEqual({
      planner: 'openai:llama3.1:8b',
      actor: 'local:./ckpt',
    });
    expect(parsePlanActAgentSpec('plan-act:openai:gpt-4o-mini')).toEqual({
      planner: 'openai:gpt-4o-mini',
      actor: 'openai:gpt-4o-mini',
    });
    expect(() => parsePlanActAgentSpec('plan-act:planner=openai:x')).toThrow(PreflightError);
    expect(() => parsePlanActAgentSpec('plan-act:planner=openai:x,critic=openai:y')).toThrow(/critic/);
    expect(() => planActSuiteAgent('plan-act:planner=random,actor=openai:x')).toThrow(/not "random"/);
  });
});
