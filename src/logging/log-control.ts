import { Injectable } from '@nestjs/common';
import pino from 'pino';
import type { LogLevel } from '../configuration';

export const PINO = Symbol('PINO');
export const LOG_DESTINATION = Symbol('LOG_DESTINATION');

/**
 * The live knobs of the logger: the level and the per-request access line, changed without restart.
 * The level is a gate in pino's `logMethod` hook rather than pino's own `level`: pino copies the level
 * into every child logger when it is made (pino-http's, each request's), so only a gate that all of
 * them share changes what every logger writes at once.
 */
@Injectable()
export class LogControl {
  private current: LogLevel = 'info';
  private threshold = pino.levels.values.info;
  private accessLog = false;

  get level(): LogLevel {
    return this.current;
  }

  setLevel(level: LogLevel): void {
    this.current = level;
    this.threshold = pino.levels.values[level];
  }

  /** Whether a line of this numeric pino level is written now. */
  writes(level: number): boolean {
    return level >= this.threshold;
  }

  get verbose(): boolean {
    return this.accessLog;
  }

  setVerbose(on: boolean): void {
    this.accessLog = on;
  }
}
