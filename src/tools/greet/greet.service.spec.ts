import { GreetService } from './greet.service';

describe('GreetService', () => {
  const service = new GreetService();

  it('greets by name and echoes times without repeating the text', () => {
    expect(service.greet({ name: 'Alice', shout: false, times: 3 })).toEqual({
      message: 'Hello, Alice!',
      times: 3,
    });
  });

  it('shouts in upper case whatever the locale', () => {
    expect(service.greet({ name: 'istanbul', shout: true, times: 1 }).message).toBe(
      'HELLO, ISTANBUL!',
    );
  });
});
