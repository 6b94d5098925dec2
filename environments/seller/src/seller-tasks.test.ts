import { loadSellerData } from './seller-data';
import { buildTaskSet, MAX_PRICE_RATIO, taskIndexForSeed } from './seller-tasks';

describe('persona × product tasks and their splits', () => {
  const data = loadSellerData();
  const train = buildTaskSet(data, 'train');
  const test = buildTaskSet(data, 'test');
  const all = buildTaskSet(data, 'all');

  it('pairs every persona with every product they could afford', () => {
    const affordable = data.personas.flatMap((persona) =>
      data.products
        .filter((product) => product.price <= MAX_PRICE_RATIO * persona.budget)
        .map((product) => `${persona.id}@${product.id}`),
    );
    expect(all.tasks.map((task) => task.id)).toEqual(affordable);
    expect(all.tasks.length).toBeGreaterThan(600);
  });

  it('splits them disjointly: every test task meets a held-out persona or product, no train task does', () => {
    const trainIds = new Set(train.tasks.map((task) => task.id));
    expect(test.tasks.some((task) => trainIds.has(task.id))).toBe(false);
    expect(train.tasks.length + test.tasks.length).toBe(all.tasks.length);
    expect(test.heldOutPersonas.length).toBeGreaterThan(0);
    expect(test.heldOutProducts.length).toBeGreaterThan(0);
    const heldOut = (task: (typeof test.tasks)[number]): boolean =>
      test.heldOutPersonas.includes(task.persona.id) || test.heldOutProducts.includes(task.product.id);
    expect(test.tasks.every(heldOut)).toBe(true);
    expect(train.tasks.some(heldOut)).toBe(false);
    expect(test.tasks.length / all.tasks.length).toBeGreaterThan(0.15);
  });

  it('maps a seed to a task deterministically and spreads seeds over the tasks', () => {
    expect(taskIndexForSeed(42, 100)).toBe(taskIndexForSeed(42, 100));
    const hit = new Set(Array.from({ length: 500 }, (_, seed) => taskIndexForSeed(seed, 100)));
    expect(hit.size).toBeGreaterThan(95);
  });
});
