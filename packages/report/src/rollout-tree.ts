import type { TreePosition } from '@turngym/rl';
import type { RolloutRecord } from './rollout-records';

/** A node of a drawn rollout tree: a tree's root (the state after reset) or the state after one turn. */
export interface RolloutNode {
  /** The node id the trajectories carry (`g0/t1/n3`); a chain's nodes are `<rollout id>/<turn index>`. */
  readonly id: string;
  /** Index of the parent in the group's `nodes`; −1 for a root. */
  readonly parent: number;
  readonly children: number[];
  /** The tree (tree runs) or rollout (chain runs) the node belongs to. */
  readonly tree: number;
  /** 0 for a root; a turn's node sits at its turn number (1 = after the first action). */
  readonly depth: number;
  /** The turn that led here; null for a root. */
  readonly turn: {
    readonly action: string;
    readonly observation: string;
    readonly reward: number;
    /** The role that wrote it (rollouts with several roles), and whether it reached the env. */
    readonly role?: string;
    readonly envStep?: boolean;
  } | null;
  /** How many rollouts pass through (or end at) this node: more than one on a shared prefix. */
  through: number;
  /** Indexes in the group's `rollouts` of the rollouts that end here. */
  readonly endOf: number[];
  /** Horizontal position in leaf slots, counted across the group's trees (a gap of one between trees). */
  x: number;
}

/** A rollout as the viewer lists it; its turns are the nodes on `path`. */
export interface RolloutView {
  readonly id: string;
  readonly reward: number;
  readonly success: boolean | null;
  readonly stopReason: string;
  readonly generatedTokens: number;
  readonly error?: string;
  readonly tree?: TreePosition;
  /** Indexes in the group's `nodes`, from the root (tree runs) or the first turn (chains) to the last turn. */
  readonly path: number[];
}

/** One prompt of one iteration: its rollouts and the tree (or chains) they form. */
export interface PromptGroupView {
  readonly group: number;
  /** The env seed (the task) the group's rollouts share. */
  readonly seed: number;
  /** `tree` when every rollout has a tree position; otherwise the rollouts are independent chains. */
  readonly kind: 'tree' | 'chain';
  readonly rollouts: RolloutView[];
  readonly nodes: RolloutNode[];
  /** Leaf slots the layout uses (the drawing's width in leaves). */
  readonly width: number;
  /** The deepest node's depth. */
  readonly depth: number;
  /** Inconsistencies found while joining the rollouts into trees (a trainer bug if any). */
  readonly warnings: string[];
}

function viewOf(record: RolloutRecord): Omit<RolloutView, 'path'> {
  return {
    id: record.id,
    reward: record.reward,
    success: record.success,
    stopReason: record.stopReason,
    generatedTokens: record.generatedTokens,
    ...(record.error !== undefined ? { error: record.error } : {}),
    ...(record.tree ? { tree: record.tree } : {}),
  };
}

/**
 * Joins one prompt's tree rollouts into trees. Each leaf carries its whole path as node ids, and leaves
 * that share a prefix share those ids, so a tree is the union of its leaves' paths; its root is the
 * `branchedFrom` of its round-0 rollout. A node reached from two different parents, a branch whose
 * `branchedFrom` is not the node its shared turns end at, or shared turns with different text are
 * reported as warnings (the drawing keeps the first version) rather than failing the whole report.
 */
function buildTrees(group: number, records: readonly RolloutRecord[]): PromptGroupView {
  const nodes: RolloutNode[] = [];
  const byId = new Map<string, number>();
  const warnings: string[] = [];
  const rollouts: RolloutView[] = [];
  const treeIndexes = [...new Set(records.map((record) => record.tree!.tree))].sort((a, b) => a - b);
  const addNode = (node: Omit<RolloutNode, 'children' | 'through' | 'endOf' | 'x'>): number => {
    nodes.push({ ...node, children: [], through: 0, endOf: [], x: 0 });
    const index = nodes.length - 1;
    byId.set(node.id, index);
    if (node.parent >= 0) nodes[node.parent]!.children.push(index);
    return index;
  };

  const roots: number[] = [];
  for (const tree of treeIndexes) {
    const members = records
      .map((record, order) => ({ record, order }))
      .filter(({ record }) => record.tree!.tree === tree)
      .sort((a, b) => a.record.tree!.round - b.record.tree!.round || a.order - b.order);
    const first = members.find(({ record }) => record.tree!.round === 0 || record.tree!.sharedTurns === 0);
    let rootId = first?.record.tree!.branchedFrom;
    if (rootId === undefined || byId.has(rootId)) {
      warnings.push(`tree ${tree}: no round-0 rollout names the root; the root is drawn without an id`);
      rootId = `tree ${tree} root`;
    }
    const root = addNode({ id: rootId, parent: -1, tree, depth: 0, turn: null });
    roots.push(root);
    for (const { record } of members) {
      const position = record.tree!;
      const path = [root];
      let previous = root;
      record.turns.forEach((turn, index) => {
        const existing = byId.get(turn.node);
        if (existing === undefined) {
          previous = addNode({
            id: turn.node,
            parent: previous,
            tree,
            depth: index + 1,
            turn: turnOf(turn),
          });
        } else {
          const node = nodes[existing]!;
          if (node.parent !== previous) {
            const had = node.parent >= 0 ? nodes[node.parent]!.id : 'none';
            warnings.push(
              `${record.id}: node ${turn.node} follows ${nodes[previous]!.id} here but ${had} in an earlier rollout`,
            );
          } else if (node.turn && (node.turn.action !== turn.action || node.turn.observation !== turn.observation)) {
            warnings.push(`${record.id}: shared node ${turn.node} has a different action or observation text`);
          }
          previous = existing;
        }
        path.push(previous);
      });
      const branchPoint = position.sharedTurns === 0 ? rootId : record.turns[position.sharedTurns - 1]?.node;
      if (branchPoint !== position.branchedFrom) {
        warnings.push(
          `${record.id}: branchedFrom is ${position.branchedFrom} but its ${position.sharedTurns} shared turns end at ${branchPoint ?? 'no node'}`,
        );
      }
      for (const index of new Set(path)) nodes[index]!.through++;
      nodes[previous]!.endOf.push(rollouts.length);
      rollouts.push({ ...viewOf(record), path });
    }
  }
  const width = layout(nodes, roots);
  return {
    group,
    seed: records[0]!.seed,
    kind: 'tree',
    rollouts,
    nodes,
    width,
    depth: Math.max(0, ...nodes.map((node) => node.depth)),
    warnings,
  };
}

/**
 * A tidy layout in leaf slots: leaves take consecutive slots in depth-first order (children in the order
 * they were sampled, so the round-0 chain is leftmost), a parent sits midway over its first and last child,
 * and trees are side by side with an empty slot between them. Returns the slots used.
 */
function layout(nodes: RolloutNode[], roots: readonly number[]): number {
  let slot = 0;
  const place = (index: number): void => {
    const node = nodes[index]!;
    if (node.children.length === 0) {
      node.x = slot++;
      return;
    }
    node.children.forEach(place);
    node.x = (nodes[node.children[0]!]!.x + nodes[node.children[node.children.length - 1]!]!.x) / 2;
  };
  roots.forEach((root, order) => {
    if (order > 0) slot++;
    place(root);
  });
  return Math.max(1, slot);
}

/** Chains: each rollout is its own line of nodes (nothing is shared), listed rather than drawn. */
function buildChains(group: number, records: readonly RolloutRecord[], warnings: string[]): PromptGroupView {
  const nodes: RolloutNode[] = [];
  const rollouts: RolloutView[] = records.map((record, order) => {
    const path: number[] = [];
    record.turns.forEach((turn, index) => {
      const parent = path.length > 0 ? path[path.length - 1]! : -1;
      nodes.push({
        id: turn.node,
        parent,
        children: [],
        tree: order,
        depth: index + 1,
        turn: turnOf(turn),
        through: 1,
        endOf: index === record.turns.length - 1 ? [order] : [],
        x: order,
      });
      if (parent >= 0) nodes[parent]!.children.push(nodes.length - 1);
      path.push(nodes.length - 1);
    });
    return { ...viewOf(record), path };
  });
  return {
    group,
    seed: records[0]!.seed,
    kind: 'chain',
    rollouts,
    nodes,
    width: Math.max(1, records.length),
    depth: Math.max(0, ...nodes.map((node) => node.depth)),
    warnings,
  };
}

/**
 * Groups one iteration's rollouts by prompt (`group`) and joins each group's rollouts into trees (tree
 * runs) or keeps them as chains. Groups come out in order of their index.
 */
export function buildPromptGroups(records: readonly RolloutRecord[]): PromptGroupView[] {
  const byGroup = new Map<number, RolloutRecord[]>();
  for (const record of records) {
    const members = byGroup.get(record.group) ?? [];
    byGroup.set(record.group, members);
    members.push(record);
  }
  return [...byGroup]
    .sort(([a], [b]) => a - b)
    .map(([group, members]) => {
      const withTree = members.filter((record) => record.tree !== undefined).length;
      if (withTree === members.length) return buildTrees(group, members);
      const warnings =
        withTree > 0
          ? [`${withTree} of ${members.length} rollouts have a tree position; all are listed as chains`]
          : [];
      return buildChains(group, members, warnings);
    });
}

/** A record's turn as a node keeps it (its role only when the rollout had several). */
function turnOf(turn: RolloutRecord['turns'][number]): NonNullable<RolloutNode['turn']> {
  return {
    action: turn.action,
    observation: turn.observation,
    reward: turn.reward,
    ...(turn.role !== undefined ? { role: turn.role, envStep: turn.envStep !== false } : {}),
  };
}
