import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadModel } from '@turngym/lm';
import { EXPERIMENTS } from './experiments';
import { PLAN_ACT_EXPERIMENTS } from './plan-act-experiments';
import { MODELS_DIR, readWarmStartManifest, sha256File, WARM_START_MANIFEST, warmStartDir } from './warm-starts';

const REPO_ROOT = join(__dirname, '..', '..', '..');

/** What is checked of each experiment's warm start: its env, its stages (each with a seed), their command, its RL caps. */
const WARM_STARTS = [
  ...EXPERIMENTS.map((experiment) => ({
    ...experiment,
    stages: experiment.sft,
    command: `train sft --env ${experiment.envId} `,
  })),
  // Plan/Act's (trainers/plan-act): its own script, which decomposes the expert's episodes before cloning.
  ...PLAN_ACT_EXPERIMENTS.map((experiment) => ({
    ...experiment,
    stages: experiment.warmStart,
    command: `${experiment.warmStartScript} --env ${experiment.envId} `,
  })),
];

/** Every directory under models/ with a manifest: the committed warm starts. */
const committed = readdirSync(MODELS_DIR).filter((name) => existsSync(join(MODELS_DIR, name, WARM_START_MANIFEST)));

describe('the committed warm starts', () => {
  it('are there for every learning experiment, one directory each', () => {
    expect(committed.sort()).toEqual(WARM_STARTS.map((experiment) => `${experiment.name}-warm-start`).sort());
  });

  describe.each(committed)('%s', (name) => {
    const dir = join(MODELS_DIR, name);
    const manifest = readWarmStartManifest(dir);
    const experiment = WARM_STARTS.find((candidate) => candidate.name === manifest.experiment);

    it("has a manifest naming its experiment's env and options", () => {
      expect(experiment).toBeDefined();
      expect(warmStartDir(manifest.experiment)).toBe(dir);
      expect({ envId: manifest.envId, envOptions: manifest.envOptions }).toEqual({
        envId: experiment?.envId,
        envOptions: experiment?.envOptions,
      });
      // One command per SFT stage of the experiment, with the stage's seed, then the copy and the scoring.
      expect(manifest.stages.map((stage) => stage.command)).toEqual(
        experiment?.stages.map(() => expect.stringContaining(experiment.command) as string),
      );
      experiment?.stages.forEach((stage, i) => expect(manifest.stages[i]?.command).toContain(`--seed ${stage.seed} `));
      expect(manifest.commands.slice(0, manifest.stages.length)).toEqual(manifest.stages.map((stage) => stage.command));
    });

    it('holds exactly the files its manifest lists, each with its sha256', () => {
      const present = readdirSync(dir).filter((file) => file !== WARM_START_MANIFEST);
      expect(present.sort()).toEqual(Object.keys(manifest.files).sort());
      for (const [file, sha256] of Object.entries(manifest.files)) {
        expect({ file, sha256: sha256File(join(dir, file)) }).toEqual({ file, sha256 });
      }
    });

    it("records a test score on the RL runs' own test tasks and caps, consistent with its episodes", () => {
      const { testScore } = manifest;
      expect(testScore.mode).toBe('greedy');
      expect(testScore.tasks).toBe(Number(experiment?.rl.evalEpisodes));
      expect(testScore.episodes).toBe(testScore.tasks);
      expect(testScore.wins).toHaveLength(testScore.episodes);
      const wins = [...testScore.wins].filter((win) => win === '1').length;
      expect(testScore.successRate).toBeCloseTo(wins / testScore.episodes, 12);
      expect(testScore.settings).toMatchObject({
        maxActionTokens: experiment?.rl.maxActionTokens,
        maxRolloutTokens: experiment?.rl.maxRolloutTokens,
      });
    });

    it("loads with @turngym/lm's loader on the cpu backend and scores tokens", async () => {
      const model = await loadModel(dir, { backend: 'cpu' });
      try {
        const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { vocab_size: number };
        expect(model.config.vocabSize).toBe(config.vocab_size);
        const tokens = model.tokenizer.encode('<calc>12 + 7</calc>');
        const { logprobs } = await model.score([{ tokens }]);
        const scored = logprobs[0]!.filter((logprob): logprob is number => logprob !== null);
        expect(scored).toHaveLength(tokens.length - 1);
        for (const logprob of scored) expect(Number.isFinite(logprob) && logprob <= 0).toBe(true);
      } finally {
        model.dispose();
      }
    });
  });
});

describe("the root README's Train section", () => {
  it('starts GRPO from the committed math warm start, on its env and options', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const section = /^## Train\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? '';
    const grpo = section.split('\n').find((line) => line.startsWith('npx turngym train grpo '));
    expect(grpo).toBeDefined();
    const checkpoint = /--checkpoint (\S+)/.exec(grpo ?? '')?.[1];
    expect(checkpoint && join(REPO_ROOT, checkpoint)).toBe(warmStartDir('math'));
    const manifest = readWarmStartManifest(warmStartDir('math'));
    expect(grpo).toContain(`--env ${manifest.envId} `);
    expect(grpo).toContain(`--options '${JSON.stringify(manifest.envOptions)}' `);
  });
});
