// Tree search over any env with fork() and a finite action list (UCT / AlphaZero's PUCT). Its own package, on
// core and spec only, so an env that searches (the seller's MCTS bot) does not pull in tfjs through @turngym/rl;
// @turngym/rl re-exports it for trainers.
export {
  TreeSearch,
  SearchNode,
  type SearchAction,
  type SearchState,
  type SearchStart,
  type SearchChild,
  type EdgeStatistics,
  type SimulationPolicy,
  type TreeSearchHooks,
  type TreeSearchResult,
} from './tree-search';
export { treeSearchOptionsSchema, validateTreeSearchOptions, type TreeSearchOptions } from './tree-search-options';
export { TreeSearchError } from './tree-search-error';
