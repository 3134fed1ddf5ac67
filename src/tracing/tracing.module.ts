import { Global, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { stopTracing } from './start';

/** Flushes the spans still buffered when the application shuts down, after its last answer. */
@Injectable()
class TracingShutdown implements OnApplicationShutdown {
  onApplicationShutdown(): Promise<void> {
    return stopTracing();
  }
}

/** Tracing's part in an application: its shutdown (the SDK itself starts with the process). */
@Global()
@Module({ providers: [TracingShutdown] })
export class TracingModule {}
