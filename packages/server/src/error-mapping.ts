import {
  EnvClosedError,
  EnvFaultError,
  InvalidActionTypeError,
  InvalidIdError,
  InvalidOptionsError,
  NameNotFoundError,
  ResetNeededError,
  TurnGymError,
  VersionNotFoundError,
} from '@turngym/core';
import type { ErrorData, ProtocolErrorCode } from './protocol';
import {
  CapacityReachedError,
  EnvBuildError,
  InvalidRequestError,
  RemoteProtocolError,
  SessionNotFoundError,
} from './server-errors';

/**
 * TurnGymError codes → OpenEnv's protocol codes. Anything not listed (RESET_NEEDED, ENV_CLOSED, ENV_FAULT, an
 * env's own codes, plain exceptions) happened while executing a request: EXECUTION_ERROR, as OpenEnv reports
 * an exception raised by `env.step`. The TurnGymError code travels too (`turngym_code`).
 */
const PROTOCOL_CODE: Readonly<Record<string, ProtocolErrorCode>> = {
  INVALID_REQUEST: 'VALIDATION_ERROR',
  INVALID_OPTIONS: 'VALIDATION_ERROR',
  INVALID_ACTION_TYPE: 'VALIDATION_ERROR',
  INVALID_ID: 'VALIDATION_ERROR',
  NAME_NOT_FOUND: 'FACTORY_ERROR',
  VERSION_NOT_FOUND: 'FACTORY_ERROR',
  PLUGIN_LOAD: 'FACTORY_ERROR',
  INVALID_TOOL_SCHEMA: 'FACTORY_ERROR',
  CAPACITY_REACHED: 'CAPACITY_REACHED',
  SESSION_NOT_FOUND: 'SESSION_ERROR',
  ENV_BUILD: 'FACTORY_ERROR',
};

/** The `data` of the `error` reply for an exception raised while serving a request. */
export function toErrorData(error: unknown): ErrorData {
  if (!TurnGymError.isInstance(error)) {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { message, code: 'EXECUTION_ERROR' };
  }
  const code = PROTOCOL_CODE[error.code] ?? 'EXECUTION_ERROR';
  const data: Record<string, unknown> = {
    message: error.message,
    code,
    turngym_code: error.code,
    retryable: error.isRetryable,
  };
  if (error instanceof InvalidRequestError) data.errors = error.details;
  if (error instanceof InvalidOptionsError)
    data.errors = error.problems.map((msg) => ({ type: 'value_error', loc: ['options'], msg }));
  if (error instanceof CapacityReachedError)
    Object.assign(data, { active_sessions: error.activeSessions, max_sessions: error.maxSessions });
  if (error instanceof NameNotFoundError || error instanceof VersionNotFoundError || error instanceof EnvBuildError)
    data.factory_name = error.envId;
  // OpenEnv's clients read `errors` on every VALIDATION_ERROR; errors without field details (an action form the
  // space does not take, a malformed id) carry one item with the message.
  if (code === 'VALIDATION_ERROR' && !(Array.isArray(data.errors) && data.errors.length > 0))
    data.errors = [{ type: 'value_error', loc: [], msg: error.message }];
  return data as unknown as ErrorData;
}

function withMessage<E extends Error>(error: E, message: string): E {
  error.message = message;
  return error;
}

/** Rebuilds the typed error behind an `error` reply, so a RemoteEnv fails the way the env would in-process. */
export function fromErrorData(data: Partial<ErrorData> | undefined): Error {
  const message = typeof data?.message === 'string' ? data.message : 'Unknown error';
  const code = typeof data?.code === 'string' ? data.code : 'UNKNOWN';
  const retryable = data?.retryable === true;
  switch (data?.turngym_code) {
    case 'RESET_NEEDED':
      return new ResetNeededError(message);
    case 'ENV_CLOSED':
      return withMessage(new EnvClosedError('remote'), message);
    case 'INVALID_ACTION_TYPE':
      return withMessage(new InvalidActionTypeError('remote', '', undefined), message);
    case 'INVALID_OPTIONS':
      return withMessage(
        new InvalidOptionsError(
          'remote env',
          (data.errors ?? []).map((detail) => detail.msg),
        ),
        message,
      );
    case 'INVALID_ID':
      return withMessage(new InvalidIdError(data.factory_name ?? ''), message);
    case 'NAME_NOT_FOUND':
      return withMessage(new NameNotFoundError(data.factory_name ?? '', []), message);
    case 'VERSION_NOT_FOUND':
      return withMessage(new VersionNotFoundError(data.factory_name ?? '', []), message);
    case 'ENV_FAULT':
      return new EnvFaultError(message, { isRetryable: retryable });
    case 'CAPACITY_REACHED':
      return new CapacityReachedError(data.active_sessions ?? 0, data.max_sessions ?? 0);
    case 'SESSION_NOT_FOUND':
      return withMessage(new SessionNotFoundError(''), message);
    case undefined:
    case 'INVALID_REQUEST':
      if (code === 'CAPACITY_REACHED')
        return new CapacityReachedError(data?.active_sessions ?? 0, data?.max_sessions ?? 0);
      return new RemoteProtocolError(code, message, data?.errors ?? [], retryable);
    default:
      return new TurnGymError(data?.turngym_code ?? code, message, { isRetryable: retryable });
  }
}
