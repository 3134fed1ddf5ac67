import { Body, Query } from '@nestjs/common';
import { Actor, type AuditActor } from '../audit/audit.context';
import { Tool } from './tool.decorator';

class In {}
class Out {}
const definition = (name: string) => ({ name, description: 'A tool.', input: In, output: Out });
const SHAPE = /its handler takes @Body\(\) input first and, if it audits, @Actor\(\) actor second/;

describe('@Tool() handler parameters (MCP calls a handler with input and actor)', () => {
  it('takes @Body() input alone, or with @Actor() second', () => {
    const declare = () => {
      class Tools {
        @Tool(definition('alone'))
        alone(@Body() input: In) {
          return input;
        }

        @Tool(definition('audited'))
        audited(@Body() input: In, @Actor() actor: AuditActor) {
          return { input, actor };
        }
      }
      return Tools;
    };
    expect(declare).not.toThrow();
  });

  it('stops at a handler without @Body(), with a part of the body, or other parameters', () => {
    expect(() => {
      class NoInput {
        @Tool(definition('no_input'))
        run() {
          return {};
        }
      }
      return NoInput;
    }).toThrow(/Tool 'no_input'/);
    expect(() => {
      class Field {
        @Tool(definition('field'))
        run(@Body('name') name: string) {
          return { name };
        }
      }
      return Field;
    }).toThrow(SHAPE);
    expect(() => {
      class Other {
        @Tool(definition('other'))
        run(@Body() input: In, @Query('q') q: string) {
          return { input, q };
        }
      }
      return Other;
    }).toThrow(SHAPE);
    expect(() => {
      class ActorFirst {
        @Tool(definition('actor_first'))
        run(@Actor() actor: AuditActor, @Body() input: In) {
          return { actor, input };
        }
      }
      return ActorFirst;
    }).toThrow(SHAPE);
  });
});
