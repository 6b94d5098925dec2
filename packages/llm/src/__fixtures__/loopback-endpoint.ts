import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OpenAIChatModel } from '../openai-chat-model';

/**
 * A model endpoint played by a real HTTP server on loopback, for tests that put the real `openai` client against
 * servers that fail or misbehave. Servers are closed after each test (`closeLoopbackServers` in `afterEach`).
 */

/** A request the server received, and when (ms since the epoch). */
export type SeenRequest = IncomingMessage & { readonly at: number };

const open: { close(done: () => void): void; closeAllConnections?(): void }[] = [];

/** Closes `server` after the test (its open connections too, where it has them). */
export function closeAfterTest(server: { close(done: () => void): void; closeAllConnections?(): void }): void {
  open.push(server);
}

export async function closeLoopbackServers(): Promise<void> {
  await Promise.all(
    open.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections?.();
          server.close(() => resolve());
        }),
    ),
  );
}

/** A server that answers each request, once its body is read, with `respond`. */
export async function loopbackEndpoint(
  respond: (request: IncomingMessage, response: ServerResponse, index: number) => void,
): Promise<{ baseURL: string; root: string; port: number; seen: SeenRequest[] }> {
  const seen: SeenRequest[] = [];
  const server = createServer((request, response) => {
    const index = seen.length;
    seen.push(Object.assign(request, { at: Date.now() }));
    // A client that went away mid-reply is what some tests play: the write error is theirs to see, not a crash.
    response.on('error', () => undefined);
    request.resume();
    request.on('end', () => respond(request, response, index));
  });
  closeAfterTest(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  const root = `http://127.0.0.1:${port}`;
  return { baseURL: `${root}/v1`, root, port, seen };
}

/** The model under test: short timeouts and retries, so a failing endpoint fails fast. */
export const model = (baseURL: string, options: Record<string, unknown> = {}): OpenAIChatModel =>
  new OpenAIChatModel(
    { model: 'm', baseURL, timeoutMs: 5000, maxRetries: 2, retryBaseDelayMs: 1, retryMaxDelayMs: 5, ...options },
    {},
  );

/** One call of the model; what it threw is returned. */
export const ask = (baseURL: string, options: Record<string, unknown> = {}): Promise<unknown> =>
  model(baseURL, options)
    .complete({ messages: [{ role: 'user', content: 'x' }] })
    .catch((caught: unknown) => caught);

/** Closes the server opened last now, leaving its port unanswered (a host that cannot be reached). */
export async function closeLatestServer(): Promise<void> {
  const server = open.pop();
  if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
}
