/**
 * The wire format: OpenEnv's WebSocket/HTTP protocol (meta-pytorch/OpenEnv, commit 685de411), plus TurnGym's
 * extensions. Every OpenEnv message keeps its exact shape so OpenEnv's unmodified Python client works; the
 * extensions are new message types and new keys that OpenEnv clients never send and safely ignore.
 * Keys on the wire are snake_case like OpenEnv's; `metadata` (the step's info) keeps TurnGym's own keys.
 */

/** OpenEnv's `WSErrorCode`, the `code` of every `error` reply. */
export type ProtocolErrorCode =
  | 'INVALID_JSON'
  | 'UNKNOWN_TYPE'
  | 'VALIDATION_ERROR'
  | 'EXECUTION_ERROR'
  | 'CAPACITY_REACHED'
  | 'FACTORY_ERROR'
  | 'SESSION_ERROR';

export const PROTOCOL_ERROR_CODES: readonly ProtocolErrorCode[] = [
  'INVALID_JSON',
  'UNKNOWN_TYPE',
  'VALIDATION_ERROR',
  'EXECUTION_ERROR',
  'CAPACITY_REACHED',
  'FACTORY_ERROR',
  'SESSION_ERROR',
];

/** One problem in a VALIDATION_ERROR, in pydantic's shape (`errors` on WS, `detail` on HTTP 422). */
export interface ValidationDetail {
  /** pydantic 2's word for the problem: `missing`, `extra_forbidden`, `int_type`, `string_type`, `enum` … */
  readonly type: string;
  /** Path to the field, e.g. `["data", "seed"]`. */
  readonly loc: readonly (string | number)[];
  readonly msg: string;
  /** The offending value, as pydantic echoes it (left out when its JSON is over 1 KiB). */
  readonly input?: unknown;
  /** The bound a value broke, as pydantic names it: `{"ge": 0}`, `{"max_length": 255}`. */
  readonly ctx?: Readonly<Record<string, unknown>>;
}

/** `data` of an `error` reply. */
export interface ErrorData {
  readonly message: string;
  readonly code: ProtocolErrorCode;
  /** VALIDATION_ERROR: what was wrong, field by field. */
  readonly errors?: readonly ValidationDetail[];
  /** CAPACITY_REACHED. */
  readonly active_sessions?: number;
  readonly max_sessions?: number;
  /** FACTORY_ERROR: the env id that could not be built. */
  readonly factory_name?: string;
  /** Extension: the TurnGymError code behind the error (RESET_NEEDED, INVALID_OPTIONS …), so RemoteEnv rethrows it. */
  readonly turngym_code?: string;
  /** Extension: whether the same request may succeed if sent again. */
  readonly retryable?: boolean;
}

/**
 * An action on the wire (the `data` of a `step` message, the `action` of `POST /step`). Exactly one form:
 * - `{"text": "..."}`: the raw text the model wrote (every space; for discrete spaces, an option's label);
 * - `{"tool": "NAME", "arguments": {...}, "id"?: "..."}`: a structured tool call (tool spaces);
 * - `{"index": n}`: an option's index (discrete spaces).
 * `metadata` (OpenEnv's `Action` base field, sent by typed Python clients) is accepted and ignored.
 */
export type WireAction =
  | { text: string; metadata?: Record<string, unknown> }
  | { tool: string; arguments: Record<string, unknown>; id?: string; metadata?: Record<string, unknown> }
  | { index: number; metadata?: Record<string, unknown> };

/** An observation on the wire: text envs send `{"text": ...}`, others `{"value": <JSON>}`. */
export type WireObservation = { text: string } | { value: unknown };

/** `data` of an `observation` reply (reset, step). The first three keys are OpenEnv's. */
export interface ObservationData {
  readonly observation: WireObservation;
  /** `null` after reset (OpenEnv's convention), the step's reward after a step. */
  readonly reward: number | null;
  /** `terminated || truncated`. */
  readonly done: boolean;
  /** The step's info (instructions, cost, fingerprint, anchor, success, feedback …), as JSON. */
  readonly metadata?: Record<string, unknown>;
  /** Extension: Gymnasium's two kinds of end. */
  readonly terminated?: boolean;
  readonly truncated?: boolean;
  /** Extension: `anchor()` of the state reached, sent when the env's info carries none. */
  readonly anchor?: string;
}

/**
 * `data` of a `state` reply: OpenEnv's `State` (`episode_id`, `step_count`) plus TurnGym's keys. `episode_id`
 * is the client's (`reset`'s `episode_id`) or `<session_id>:<resets>`; `seed` is the seed the last reset used
 * (the client's, or the one the env reports in `info.seed`).
 */
export interface StateData {
  readonly episode_id: string;
  readonly step_count: number;
  readonly env_id: string;
  readonly session_id: string;
  readonly seed: number | null;
  readonly done: boolean;
}

/** Per-session configuration (the `session` message's `data`, and extension keys of `reset`'s `data`). */
export interface SessionConfigData {
  /** Which served env this session runs (default: `?env=` of the URL, else the server's first id). */
  env_id?: string;
  /** Options for `make()`, validated against the env's own schema. */
  env_options?: Record<string, unknown>;
  /** Turn limit (default: the env's `spec.maxTurns`). */
  max_turns?: number;
  /** Per-episode budgets: the step that reaches one is truncated (`info.truncatedBy`). */
  budget?: { max_tool_calls?: number; max_llm_tokens?: number };
}

/** `data` of a `session` reply. */
export interface SessionData {
  readonly session_id: string;
  readonly env_id: string;
  /** The env's full `EnvSpec` (spaces, tools, docs, maxTurns …). */
  readonly spec: Record<string, unknown>;
}

/** `data` of a `fork` reply: claim the new session by connecting to `/ws?session=<session_id>`. */
export interface ForkData {
  readonly session_id: string;
  /** How long the fork waits to be claimed before the server closes it. */
  readonly expires_in_ms: number;
}

/** Replies a client has not read yet, per connection, before the server drops it (it stops reading). */
export const MAX_UNREAD_BYTES = 64 * 1024 * 1024;

/** WebSocket close codes the server uses. */
export const CLOSE_CODES = {
  /** After a `close` message, or a SESSION_ERROR (as OpenEnv does). */
  normal: 1000,
  /** Idle reaper, shutdown. */
  goingAway: 1001,
  /** A frame over the hard cap (the WS layer cuts it off). */
  messageTooBig: 1009,
  /** The session's env threw outside any request (a timer's callback): the session is ended. */
  internalError: 1011,
  /** CAPACITY_REACHED: try again later. */
  tryAgainLater: 1013,
} as const;

/** Message types a client may send over `/ws` (and, with `open`, inside `/mux` envelopes). */
export const CLIENT_MESSAGE_TYPES = [
  'reset',
  'step',
  'state',
  'close',
  'session',
  'fork',
  'fingerprint',
  'anchor',
  'mcp',
  'open',
] as const;
export type ClientMessageType = (typeof CLIENT_MESSAGE_TYPES)[number];

/**
 * Extension `/mux`: many sessions on one WebSocket. Every frame is a JSON array of envelopes, each carrying
 * one message of one channel (`c`, an integer the client picks). Messages are the `/ws` messages, plus
 * `open` (client → server, first on a channel; replied with `session` or `error`) and `closed` (server →
 * client: the channel's session ended, after a `close` or on the server's initiative). Envelopes of many
 * channels share frames, so a busy client and server pay one write per batch instead of one per message.
 * A frame-level problem (not JSON, too large) is answered with `c: null`.
 */
export interface MuxEnvelope {
  readonly c: number | null;
  readonly m: unknown;
}

/** `data` of a mux `open` message: a new session's config, or the id of a fork to claim. */
export interface OpenData extends SessionConfigData {
  session?: string;
}

/** `data` of a mux `closed` message. */
export interface ClosedData {
  readonly code: number;
  readonly reason: string;
}
