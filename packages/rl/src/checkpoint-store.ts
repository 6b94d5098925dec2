/**
 * State a trainer keeps outside the model and its optimisers (a search tree's statistics, a replay
 * database), saved with every training checkpoint and restored on resume, as part of the one atomic unit.
 *
 * `saveTrainingCheckpoint` gives `save` an empty directory inside the checkpoint's temporary directory; the
 * checkpoint fsyncs it and swaps it in with everything else, so a store never needs its own atomicity. A
 * store must write a snapshot of itself as of the call (not a file it keeps writing to afterwards).
 */
export interface CheckpointStore {
  /** Writes a snapshot of the store into `dir` (empty, already created). */
  save(dir: string): Promise<void>;
  /** Restores the store to the snapshot `save` wrote into `dir`, replacing what it holds. */
  load(dir: string): Promise<void>;
  /**
   * Empties the store: a run killed before its first checkpoint starts over, and whatever the store took
   * in during that first iteration must go with the rest of it.
   */
  reset(): Promise<void>;
}
