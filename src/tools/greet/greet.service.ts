import { Injectable } from '@nestjs/common';
import { GreetInput, GreetResult } from './greet.dto';

@Injectable()
export class GreetService {
  greet({ name, shout, times }: GreetInput): GreetResult {
    const message = `Hello, ${name}!`;
    // toUpperCase, not toLocaleUpperCase: the same answer whatever the server's locale.
    return { message: shout ? message.toUpperCase() : message, times };
  }
}
