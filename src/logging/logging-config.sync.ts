import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { ConfigurationService } from '../configuration';
import type { LogLevel } from '../configuration';
import { LogControl } from './log-control';

/**
 * Keeps the running logger on `logging.level` and `logging.verbose` of the configuration tree: at
 * start-up, and after every change of the overrides (config_set here, or on another instance).
 */
@Injectable()
export class LoggingConfigSync implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('Config');
  private applying?: Promise<void>;
  private applyAgain = false;
  private unsubscribe?: () => void;

  constructor(
    private readonly config: ConfigurationService,
    private readonly control: LogControl,
  ) {}

  async onModuleInit(): Promise<void> {
    this.unsubscribe = this.config.onChange(() => this.applyLive());
    await this.applyLive();
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  /**
   * Changes arriving while one is applied are folded into one more pass, so the last change always
   * wins, whatever order the store answers in.
   */
  private applyLive(): Promise<void> {
    this.applyAgain = true;
    this.applying ??= this.drain();
    return this.applying;
  }

  private async drain(): Promise<void> {
    try {
      while (this.applyAgain) {
        this.applyAgain = false;
        try {
          await this.apply();
        } catch (error) {
          this.logger.warn({ err: error }, 'Could not apply the logging configuration');
        }
      }
    } finally {
      this.applying = undefined;
    }
  }

  private async apply(): Promise<void> {
    const { values } = await this.config.snapshot();
    const level = values.get('logging.level')?.value as LogLevel;
    const verbose = values.get('logging.verbose')?.value as boolean;
    if (this.control.level !== level) {
      this.control.setLevel(level);
      this.logger.log(`Log level is now ${level}`);
    }
    if (this.control.verbose !== verbose) {
      this.control.setVerbose(verbose);
      this.logger.log(`Access log is now ${verbose ? 'on' : 'off'}`);
    }
  }
}
