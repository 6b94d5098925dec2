import { workerOfRequestLine, workerSessionPrefix } from './worker-routing';

describe('workerOfRequestLine', () => {
  it('routes a fork claim and a side request to the worker whose prefix the session id carries', () => {
    const id = `${workerSessionPrefix(3)}0b8e6c2a-1f7d-4e55-9a57-3c1e2d4f5a6b`;
    expect(workerOfRequestLine(`GET /ws?session=${id} HTTP/1.1`)).toBe(3);
    expect(workerOfRequestLine(`GET /envs/turngym%2Fexample-v1/ws?token=t&session=${id} HTTP/1.1`)).toBe(3);
    expect(workerOfRequestLine(`POST /sessions/${id}/fingerprint HTTP/1.1`)).toBe(3);
    expect(workerOfRequestLine(`GET /proxy/sessions/${id}/anchor HTTP/1.1`)).toBe(3);
  });

  it('leaves a request that names no session to round-robin', () => {
    expect(workerOfRequestLine('GET /ws HTTP/1.1')).toBeUndefined();
    expect(workerOfRequestLine('GET /health HTTP/1.1')).toBeUndefined();
    expect(workerOfRequestLine('GET /ws?session=0b8e6c2a-1f7d HTTP/1.1')).toBeUndefined();
    expect(workerOfRequestLine('garbage')).toBeUndefined();
  });
});
