import { Tool, ToolController } from '../index';
import { GreetInput, GreetResult } from './greet.dto';
import { GreetService } from './greet.service';

@ToolController()
export class GreetController {
  constructor(private readonly greeter: GreetService) {}

  @Tool({
    name: 'greet',
    title: 'Greet',
    annotations: { readOnlyHint: true, openWorldHint: false },
    description: 'Greet a user by name.',
    input: GreetInput,
    output: GreetResult,
    // Answered at once: a typed client reads one success, never the 202 of a background call.
    async: 'never',
  })
  greet(input: GreetInput): GreetResult {
    return this.greeter.greet(input);
  }
}
