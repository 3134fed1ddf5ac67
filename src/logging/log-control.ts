import { Inject, Injectable } from '@nestjs/common';
import type { Logger as PinoInstance } from 'pino';

export const PINO = Symbol('PINO');
export const LOG_DESTINATION = Symbol('LOG_DESTINATION');

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The live knobs of the logger: the level and the per-request access line, changed without restart. */
@Injectable()
export class LogControl {
  private accessLog = false;

  constructor(@Inject(PINO) private readonly logger: PinoInstance) {}

  get level(): string {
    return this.logger.level;
  }

  setLevel(level: LogLevel): void {
    this.logger.level = level;
  }

  get verbose(): boolean {
    return this.accessLog;
  }

  setVerbose(on: boolean): void {
    this.accessLog = on;
  }
}
