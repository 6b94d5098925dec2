import { transportAccept } from './accept-header';

describe('transportAccept', () => {
  it("completes an Accept that takes this server's reply to the list the SDK's transport wants", () => {
    const full = 'application/json, text/event-stream';
    expect(transportAccept('POST', full)).toBe(full);
    expect(transportAccept('POST', '*/*')).toBe('*/*, application/json, text/event-stream');
    expect(transportAccept('POST', undefined)).toBe(full);
    expect(transportAccept('POST', 'application/json')).toBe(full);
    expect(transportAccept('POST', 'Application/*;q=0.5')).toBe(
      'Application/*;q=0.5, application/json, text/event-stream',
    );
    // A GET opens the event stream: that is what its Accept must take.
    expect(transportAccept('GET', '*/*')).toBe('*/*, text/event-stream');
    expect(transportAccept('GET', 'text/*')).toBe('text/*, text/event-stream');
    expect(transportAccept('GET', undefined)).toBe('text/event-stream');
  });

  it('leaves an Accept that refuses the reply as it came, for the transport to answer 406', () => {
    expect(transportAccept('POST', 'text/html')).toBe('text/html');
    expect(transportAccept('POST', 'application/json;q=0, */*')).toBe('application/json;q=0, */*');
    expect(transportAccept('POST', 'text/event-stream')).toBe('text/event-stream');
    expect(transportAccept('GET', 'application/json')).toBe('application/json');
    expect(transportAccept('DELETE', undefined)).toBeUndefined();
  });
});
