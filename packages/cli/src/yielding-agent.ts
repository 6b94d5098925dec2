import type { SuiteAgent } from '@turngym/leaderboard';

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * `agent`, whose every move first lets the event loop turn. An env and agent that never wait on I/O (the seller's
 * simulator, a baseline) run a whole suite in microtasks, where a SIGINT or SIGTERM handler never gets its turn:
 * `turngym bench`'s Ctrl-C would do nothing until the suite ended. One `setImmediate` per move costs microseconds.
 */
export function yieldingSuiteAgent(agent: SuiteAgent): SuiteAgent {
  return new Proxy(agent, {
    get(target, property) {
      if (property !== 'sourceFor') {
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return (...args: Parameters<SuiteAgent['sourceFor']>): ReturnType<SuiteAgent['sourceFor']> => {
        const source = target.sourceFor(...args);
        return {
          name: source.name,
          close: () => source.close(),
          create: (context) => {
            const created = source.create(context);
            const act = created.act.bind(created);
            return new Proxy(created, {
              get(inner, name) {
                if (name === 'act') {
                  return async (...actArgs: Parameters<typeof act>) => {
                    await turn();
                    return act(...actArgs);
                  };
                }
                const value: unknown = Reflect.get(inner, name, inner);
                return typeof value === 'function' ? value.bind(inner) : value;
              },
            });
          },
        };
      };
    },
  });
}
