import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { HfTokenizer } from './hf-tokenizer';
import type { Tokenizer } from './tokenizer';

/**
 * Prompts of at least this many bytes are tokenized off the event loop. Shorter ones cost at most a few hundred ms
 * even in BPE's slow case (a long run merged step by step, ~25-40 µs a byte) and are tokenized in place, as they
 * always were; a worker's round trip would only add to the common case.
 */
export const OFF_THREAD_PROMPT_BYTES = 8 * 1024;

/** The worker: rebuilds the tokenizer from its files, then answers `{ id, text, addSpecialTokens }` in order. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { HfTokenizer } = require(workerData.module);
const tokenizer = new HfTokenizer(workerData.tokenizerJson, workerData.tokenizerConfig);
parentPort.on('message', ({ id, text, addSpecialTokens }) => {
  let ids;
  try {
    ids = Int32Array.from(tokenizer.encode(text, { addSpecialTokens }));
  } catch (error) {
    parentPort.postMessage({ id, failed: String((error && error.message) || error) });
    return;
  }
  parentPort.postMessage({ id, ids }, [ids.buffer]);
});
`;

/**
 * The compiled HfTokenizer the worker loads: this file's sibling in dist/, or dist/'s copy where this runs from
 * src/ (the tests); undefined where neither exists (nothing is then tokenized off the event loop).
 */
function hfTokenizerModule(): string | undefined {
  const candidates = __filename.endsWith('.ts')
    ? [join(__dirname, '..', 'dist', 'hf-tokenizer.js')]
    : [join(__dirname, 'hf-tokenizer.js')];
  return candidates.find((candidate) => existsSync(candidate));
}

interface Pending {
  resolve(ids: number[]): void;
  /** The worker could not answer (it failed, or the server closed): the caller tokenizes in place. */
  fallBack(): void;
}

/**
 * A server's tokenizer for prompts: long prompts of an HF tokenizer go to a worker thread, so that one client's
 * megabyte of text (BPE's slow case: ~45 s for 1 MB of spaces under a 64-space token, measured on this machine) no
 * longer stalls every other client — `/v1/models`, short completions, streams — for the whole of it. The worker
 * runs the same tokenizer.json with the same code, so the ids are those `tokenizer.encode` gives; short prompts,
 * other tokenizers (the byte tokenizer is linear and fast), and any failure of the worker are tokenized in place,
 * as before. Prompts queue in the one worker in arrival order.
 */
export class ServeModelTokenizer {
  private worker: Worker | undefined;
  private unavailable = false;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;

  constructor(
    readonly tokenizer: Tokenizer,
    private readonly offThreadBytes = OFF_THREAD_PROMPT_BYTES,
  ) {}

  /** `tokenizer.encode(text, options)`, off the event loop for a long prompt. */
  async encode(text: string, options: { addSpecialTokens?: boolean } = {}): Promise<number[]> {
    const worker = text.length * 3 >= this.offThreadBytes ? this.workerFor(text) : undefined;
    if (!worker) return this.tokenizer.encode(text, options);
    const ids = await new Promise<number[] | null>((resolve) => {
      const id = this.nextId++;
      this.pending.set(id, { resolve, fallBack: () => resolve(null) });
      worker.postMessage({ id, text, addSpecialTokens: options.addSpecialTokens ?? false });
    });
    return ids ?? this.tokenizer.encode(text, options);
  }

  /** Stops the worker; prompts it was tokenizing are tokenized in place. Idempotent. */
  async close(): Promise<void> {
    this.unavailable = true;
    const worker = this.worker;
    this.worker = undefined;
    this.settleAll();
    await worker?.terminate();
  }

  private workerFor(text: string): Worker | undefined {
    if (this.unavailable || !(this.tokenizer instanceof HfTokenizer)) return undefined;
    if (Buffer.byteLength(text) < this.offThreadBytes) return undefined;
    if (this.worker) return this.worker;
    const module = hfTokenizerModule();
    if (!module) {
      this.unavailable = true;
      return undefined;
    }
    const { tokenizerJson, tokenizerConfig } = this.tokenizer.toHfFiles();
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { module, tokenizerJson, tokenizerConfig } });
    // It must not keep a process alive whose server was never closed.
    worker.unref();
    worker.on('message', ({ id, ids, failed }: { id: number; ids?: Int32Array; failed?: string }) => {
      const waiting = this.pending.get(id);
      this.pending.delete(id);
      // A tokenizer error is thrown by tokenizing in place, with the message and class the caller knows.
      if (failed !== undefined || !ids) waiting?.fallBack();
      else waiting?.resolve(Array.from(ids));
    });
    const lost = (): void => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.unavailable = true;
      this.settleAll();
    };
    worker.on('error', lost);
    worker.on('exit', lost);
    this.worker = worker;
    return worker;
  }

  private settleAll(): void {
    for (const waiting of this.pending.values()) waiting.fallBack();
    this.pending.clear();
  }
}
