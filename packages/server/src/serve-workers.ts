import cluster, { type Worker } from 'node:cluster';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { defineOptions, type JSONSchemaType, type Logger } from '@turngym/core';
import { refuseConnection, tooManyConnections } from './connection-refusal';
import { connectionsWithinFileLimit } from './open-file-limit';
import { WorkerStartError } from './server-errors';
import { workerOfRequestLine } from './worker-routing';

/** The JSON part of `serveWorkers` options, validated with ajv. */
export interface WorkerPoolSettings {
  /** Worker processes, each a whole env server (`serveAsWorker`); one per core for CPU-heavy envs. */
  workers: number;
  port: number;
  host: string;
  /** The script each worker runs (default: this process's own, as `cluster.fork` does). */
  exec?: string;
  /** Its arguments (default: this process's own). */
  args?: string[];
  /**
   * Longest a request line may take to arrive before the connection is dropped (ms). As long as Node's own
   * `headersTimeout`: in a burst of thousands of connects, a busy client writes its request late.
   */
  headTimeoutMs: number;
  /**
   * Most connections the primary holds at once: those whose request line has not arrived yet (once routed, a
   * connection is its worker's, under the worker's own `maxConnections`). One more is answered 503 with
   * Retry-After and closed, as the env server answers past its own cap. Without a cap, clients that connect and
   * send nothing hold the primary's file descriptors until it has none left, and then every connection, `/health`
   * included, is reset unanswered. Default: 90% of what the process's open-file limit leaves once the primary's own
   * files are counted (Linux; elsewhere no cap).
   */
  maxConnections?: number;
  /** On close(), how long workers may take to shut down gracefully before they are killed (ms). */
  shutdownTimeoutMs: number;
}

export interface WorkerPoolOptions extends Partial<Omit<WorkerPoolSettings, 'workers'>> {
  workers: number;
  /** Where worker crashes and restarts are reported. Default: silent. */
  logger?: Logger;
  /** Called when a worker exits unasked (its sessions are gone; a new worker takes its index). */
  onWorkerExit?: (event: { index: number; pid: number; code: number | null; signal: string | null }) => void;
}

const workerPoolSettingsSchema: JSONSchemaType<WorkerPoolSettings> = {
  type: 'object',
  additionalProperties: false,
  required: ['workers'],
  properties: {
    workers: { type: 'integer', minimum: 1, maximum: 1024 },
    port: { type: 'integer', minimum: 0, maximum: 65535, default: 0 },
    host: { type: 'string', minLength: 1, default: '127.0.0.1' },
    exec: { type: 'string', minLength: 1, nullable: true },
    args: { type: 'array', items: { type: 'string' }, nullable: true },
    headTimeoutMs: { type: 'integer', minimum: 1, default: 60000 },
    maxConnections: { type: 'integer', minimum: 1, maximum: 1000000, nullable: true },
    shutdownTimeoutMs: { type: 'integer', minimum: 0, default: 15000 },
  },
};

const validateWorkerPoolSettings = defineOptions<WorkerPoolSettings>('serveWorkers', workerPoolSettingsSchema);

/** A running cluster of env-server workers behind one port. */
export interface WorkerPoolHandle {
  readonly url: string;
  readonly port: number;
  /** Most connections the primary holds at once before it answers 503 (`maxConnections` or its default). */
  readonly maxConnections: number;
  /** Process ids of the live workers, by index. */
  workerPids(): number[];
  /** Stops accepting, asks every worker to close gracefully (sessions told, envs closed), waits for them. */
  close(): Promise<void>;
}

/** Messages between the primary and its workers (IPC). */
export type WorkerMessage =
  | { turngym: 'connection'; head: string }
  | { turngym: 'shutdown' }
  | { turngym: 'ready' }
  | { turngym: 'failed'; message: string };

/** Longest request line the primary reads before it routes a connection anyway. */
const MAX_HEAD_BYTES = 16 * 1024;

/**
 * The primary's default `maxConnections`: what the open-file limit allows once its own files are counted (stdio,
 * the listener, libuv's, a channel and pipes per worker: about 20 plus 3 per worker, doubled).
 */
function defaultMaxConnections(workers: number): number {
  return connectionsWithinFileLimit(40 + 6 * workers) ?? Number.MAX_SAFE_INTEGER;
}

interface Slot {
  worker: Worker;
  ready: boolean;
}

/** A socket's libuv handle: the primary stops reading it there, so what it has not read stays for the worker. */
function handleOf(socket: Socket): { readStop?: () => void; readStart?: () => void } | undefined {
  return (socket as unknown as { _handle?: { readStop?: () => void; readStart?: () => void } })._handle;
}

/**
 * Serves one port from N worker processes (Node's `cluster`): each worker is a whole env server with its own
 * sessions. The primary accepts connections and hands each socket to a worker (the way cluster's own
 * round-robin does), after reading its request line: a connection that names a session (a fork claim,
 * `/ws?session=w1-…`, or RemoteEnv's side request `/sessions/w1-…/fingerprint`) goes to the worker holding it;
 * any other goes round-robin. A WebSocket stays on the worker that took it, so a session and its forks live
 * on one worker. A worker that dies takes its sessions with it: their clients see the connection drop
 * (EnvFaultError, retryable), and a new worker takes its index.
 */
export async function serveWorkers(options: WorkerPoolOptions): Promise<WorkerPoolHandle> {
  const { logger, onWorkerExit, ...rest } = options;
  const settings = validateWorkerPoolSettings(
    Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined)),
  );
  if (!cluster.isPrimary) throw new WorkerStartError('serveWorkers runs in the primary process, not in a worker');
  cluster.setupPrimary({
    ...(settings.exec === undefined ? {} : { exec: settings.exec }),
    ...(settings.args === undefined ? {} : { args: settings.args }),
  });
  const slots: Slot[] = [];
  let stopping = false;
  let next = 0;
  const maxConnections = settings.maxConnections ?? defaultMaxConnections(settings.workers);
  /** Connections the primary holds now: accepted, not yet handed to a worker nor closed. */
  let held = 0;
  /** Whether a refusal was logged since the primary was last below the cap (once per flood, not per connection). */
  let refusalLogged = false;

  const spawn = (index: number): Promise<void> => {
    const worker = cluster.fork({ TURNGYM_WORKER_INDEX: String(index) });
    const slot: Slot = { worker, ready: false };
    slots[index] = slot;
    return new Promise<void>((resolve, reject) => {
      worker.on('message', (message: WorkerMessage) => {
        if (message?.turngym === 'ready') {
          slot.ready = true;
          resolve();
        } else if (message?.turngym === 'failed') {
          reject(new WorkerStartError(`worker ${index} could not start: ${message.message}`));
        }
      });
      worker.on('exit', (code, signal) => {
        if (!slot.ready) {
          reject(new WorkerStartError(`worker ${index} exited (${signal ?? code}) before it was ready`));
          return;
        }
        slot.ready = false;
        if (stopping) return;
        const pid = worker.process.pid ?? 0;
        logger?.warn(
          `worker ${index} (pid ${pid}) exited (${signal ?? `code ${code}`}): its sessions are lost, their clients ` +
            'see the connection close; starting a new worker in its place',
        );
        onWorkerExit?.({ index, pid, code, signal });
        spawn(index).then(
          () =>
            logger?.info(`worker ${index} (pid ${slots[index]?.worker.process.pid ?? 0}) ready in place of pid ${pid}`),
          (error: unknown) => logger?.error(String(error)),
        );
      });
    });
  };

  /** The worker a new connection goes to: the session's owner, else the next ready worker in turn. */
  const pick = (owner: number | undefined): Slot | undefined => {
    if (owner !== undefined) return slots[owner]?.ready ? slots[owner] : undefined;
    for (let tried = 0; tried < slots.length; tried += 1) {
      const slot = slots[next % slots.length];
      next += 1;
      if (slot?.ready) return slot;
    }
    return undefined;
  };

  // Connections whose request line has not arrived yet: close() cuts them instead of waiting on them.
  const reading = new Set<Socket>();
  const route = (socket: Socket): void => {
    if (held >= maxConnections) {
      if (!refusalLogged)
        logger?.warn(
          `refusing connections: ${held} waiting for their request line, maxConnections is ${maxConnections} (503 until some close)`,
        );
      refusalLogged = true;
      refuseConnection(socket, tooManyConnections(maxConnections));
      return;
    }
    held += 1;
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      held -= 1;
      if (held < maxConnections * 0.9) refusalLogged = false;
    };
    socket.on('error', () => undefined);
    reading.add(socket);
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => socket.destroy(), settings.headTimeoutMs);
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      size += chunk.length;
      const head = Buffer.concat(chunks);
      const lineEnd = head.indexOf('\r\n');
      if (lineEnd < 0 && size < MAX_HEAD_BYTES) return;
      clearTimeout(timer);
      reading.delete(socket);
      socket.off('data', onData);
      // Stop reading: what the primary has not read stays in the kernel for the worker.
      socket.pause();
      handleOf(socket)?.readStop?.();
      const line = head.subarray(0, lineEnd < 0 ? head.length : lineEnd).toString('latin1');
      const owner = workerOfRequestLine(line);
      const slot = pick(owner);
      if (!slot) {
        // The session's worker died (or none is up): a 503 the client reports as retryable, read as the cap's
        // refusal is (the request's unread bytes would otherwise reset the connection before the answer is read).
        handleOf(socket)?.readStart?.();
        refuseConnection(
          socket,
          owner === undefined
            ? 'No worker is ready to take this connection (the workers are starting or restarting); retry later'
            : `No worker holds this session any more (worker ${owner} exited, and its sessions with it); open a new session`,
        );
        return;
      }
      const message: WorkerMessage = { turngym: 'connection', head: head.toString('base64') };
      slot.worker.send(message, socket, { keepOpen: false }, (error) => {
        // Handed over (its descriptor is closed here), or lost with the worker: either way no longer the primary's.
        release();
        if (error) socket.destroy();
      });
    };
    socket.on('data', onData);
    socket.on('close', () => {
      clearTimeout(timer);
      reading.delete(socket);
      release();
    });
    socket.resume();
  };

  const server: Server = createServer({ pauseOnConnect: true }, route);
  try {
    await Promise.all(Array.from({ length: settings.workers }, (_, index) => spawn(index)));
  } catch (error) {
    stopping = true;
    for (const slot of slots) slot?.worker.process.kill('SIGKILL');
    throw error;
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // A large backlog: thousands of sessions may connect in the same second (OpenEnv's scaling test).
    server.listen({ port: settings.port, host: settings.host, backlog: 65535 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // Once listening, an error is one connection the kernel could not hand over, not the end of the primary (and
  // with it of every worker): unhandled, it would end the process.
  server.on('error', (error) => logger?.warn(`accepting a connection failed: ${error.message}`));
  const port = (server.address() as AddressInfo).port;
  const shown =
    settings.host === '0.0.0.0' ? '127.0.0.1' : settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${shown}:${port}`,
    port,
    maxConnections,
    workerPids: () => slots.map((slot) => slot.worker.process.pid ?? 0),
    close: () => {
      closing ??= (async () => {
        stopping = true;
        const listening = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const socket of reading) socket.destroy();
        await Promise.all(
          slots.map(
            (slot) =>
              new Promise<void>((resolve) => {
                const { worker } = slot;
                if (worker.isDead()) return resolve();
                const kill = setTimeout(() => worker.process.kill('SIGKILL'), settings.shutdownTimeoutMs);
                worker.once('exit', () => {
                  clearTimeout(kill);
                  resolve();
                });
                const shutdown: WorkerMessage = { turngym: 'shutdown' };
                try {
                  worker.send(shutdown);
                } catch {
                  worker.process.kill('SIGKILL');
                }
              }),
          ),
        );
        await listening;
      })();
      return closing;
    },
  };
}
