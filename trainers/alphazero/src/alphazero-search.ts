import { TreeSearch, type SearchState, type TreeSearchResult } from '@turngym/search';
import type { Action, Agent, AgentEpisodeStart, Env, Info } from '@turngym/spec';
import type { DialogueEncoder } from './dialogue-features';
import type { PolicyValueNet } from './policy-value-net';
import { TranscriptRecorder, type Transcript, type TranscriptStep } from './transcript-recorder';

/** The PUCT settings of a search (ALGORITHMS.md §5's reference values are the trainer's defaults). */
export interface AlphaZeroSearchOptions {
  readonly simulations: number;
  readonly cBase: number;
  readonly cInit: number;
  readonly dirichletAlpha: number;
  /** 0.25 in self-play; 0 (no noise) at test time. */
  readonly dirichletWeight: number;
  /** 1 in self-play (a move sampled ∝ visits); 0 at test time (the most visited). */
  readonly temperature: number;
  readonly seed: number;
}

/** What a search returns, with π and the state's features over every action (the replay sample's fields). */
export interface AlphaZeroDecision extends TreeSearchResult<number> {
  /** π_MCTS over all n actions (0 where illegal). */
  readonly fullPolicy: number[];
  /** The network's P(s, ·) over all n actions, without the root's noise. */
  readonly networkPriors: number[];
  readonly features: Float32Array;
  readonly legalMask: number[];
}

/**
 * AlphaZero's search: `@turngym/search`'s `TreeSearch` under the `puct` rule, each new leaf evaluated once by
 * the policy-value network (its priors over the leaf's legal actions, its value instead of a rollout), through
 * `env.fork()` of a `TranscriptRecorder`, so the network reads the dialogue that leads to each leaf.
 */
export class AlphaZeroSearch {
  private readonly tree: TreeSearch<string, number>;
  // The prior and value hooks see the same leaf object: evaluate the network once per leaf.
  private readonly evaluations = new WeakMap<object, { priors: number[]; value: number }>();

  constructor(
    readonly net: PolicyValueNet,
    readonly encoder: DialogueEncoder,
    options: AlphaZeroSearchOptions,
  ) {
    this.tree = new TreeSearch<string, number>(
      {
        rule: 'puct',
        simulations: options.simulations,
        cBase: options.cBase,
        cInit: options.cInit,
        dirichletAlpha: options.dirichletAlpha,
        dirichletWeight: options.dirichletWeight,
        temperature: options.temperature,
        choose: 'visits',
        seed: options.seed,
      },
      {
        prior: (state) => {
          const { priors } = this.evaluate(state);
          return state.actions.map((action) => priors[action] as number);
        },
        value: (state) => this.evaluate(state).value,
      },
    );
  }

  private evaluate(state: SearchState<string, number>): { priors: number[]; value: number } {
    let evaluation = this.evaluations.get(state);
    if (!evaluation) {
      const transcript = (state.env as unknown as TranscriptRecorder).transcript;
      evaluation = this.net.evaluate(this.encoder.encode(transcript, state.info), this.encoder.legal(state.info));
      this.evaluations.set(state, evaluation);
    }
    return evaluation;
  }

  /** Searches from `env`'s state (only forked); `info` is that of its last reset or step. */
  async search(env: TranscriptRecorder, info: Info): Promise<AlphaZeroDecision> {
    const result = await this.tree.search(env as unknown as Env<string, number>, { info });
    const n = this.encoder.actions;
    const fullPolicy = new Array<number>(n).fill(0);
    result.tree.legal.forEach((action, index) => (fullPolicy[action] = result.policy[index] as number));
    const features = this.encoder.encode(env.transcript, info);
    const legalMask = this.encoder.legal(info);
    const networkPriors = new Array<number>(n).fill(0);
    result.tree.legal.forEach((action, index) => (networkPriors[action] = result.tree.priors?.[index] ?? 0));
    return { ...result, fullPolicy, networkPriors, features, legalMask };
  }
}

/**
 * AlphaZero at test time: one search a move from the state of the env it acts in (a `TranscriptRecorder`;
 * privileged like the seller's `MctsAgent`, since its simulations step forks of that very env).
 */
export class AlphaZeroMctsAgent implements Agent<string, Action> {
  readonly name = 'alphazero-mcts';

  constructor(
    private readonly env: TranscriptRecorder,
    private readonly search: AlphaZeroSearch,
  ) {}

  async start(_episode: AgentEpisodeStart<string>): Promise<void> {}

  async act(_observation: string, info: Info): Promise<Action> {
    return (await this.search.search(this.env, info)).action;
  }
}

/**
 * The raw policy head: the legal action with the largest prior, from the agent's own transcript of what it
 * saw. No search and no fork: a fair policy, unlike the searches through the env's hidden state.
 */
export class PolicyHeadAgent implements Agent<string, Action> {
  readonly name = 'alphazero-policy';
  private transcript: Transcript = { opening: '', openingInfo: {}, steps: [] };
  private lastAction = -1;

  constructor(
    private readonly net: PolicyValueNet,
    private readonly encoder: DialogueEncoder,
  ) {}

  async start(episode: AgentEpisodeStart<string>): Promise<void> {
    this.transcript = { opening: String(episode.observation), openingInfo: episode.info, steps: [] };
    this.lastAction = -1;
  }

  async act(observation: string, info: Info): Promise<Action> {
    if (this.lastAction >= 0) {
      const step: TranscriptStep = { action: this.lastAction, observation: String(observation), info };
      this.transcript = { ...this.transcript, steps: [...this.transcript.steps, step] };
    }
    const legal = this.encoder.legal(info);
    const { priors } = this.net.evaluate(this.encoder.encode(this.transcript, info), legal);
    let best = -1;
    priors.forEach((prior, action) => {
      if (legal[action] === 1 && (best < 0 || prior > (priors[best] as number))) best = action;
    });
    this.lastAction = best;
    return best;
  }
}
