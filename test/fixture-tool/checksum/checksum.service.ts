import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { ConfigurationService } from '../../../src/configuration/configuration.service';
import type { ProgressReporter } from '../../../src/tools/tool-runner';
import type { ChecksumInput, ChecksumResult } from './checksum.dto';

/**
 * Hashes a document in chunks of `checksum.chunk_bytes`, giving the event loop back between two
 * chunks (a large document does not hold other calls up) and reporting each chunk as progress;
 * then hashes the digest again `rounds - 1` times.
 */
@Injectable()
export class ChecksumService {
  constructor(private readonly config: ConfigurationService) {}

  async checksum(
    { text, algorithm, rounds }: ChecksumInput,
    signal: AbortSignal,
    progress: ProgressReporter,
  ): Promise<ChecksumResult> {
    const chunkBytes = (await this.config.get('checksum.chunk_bytes')) as number;
    const document = Buffer.from(text, 'utf8');
    const chunks = Math.ceil(document.length / chunkBytes);
    const hash = createHash(algorithm);
    for (let chunk = 0; chunk < chunks; chunk++) {
      signal.throwIfAborted();
      hash.update(document.subarray(chunk * chunkBytes, (chunk + 1) * chunkBytes));
      progress(chunk + 1, chunks + 1, `hashed ${chunk + 1} of ${chunks} chunks`);
      await nextTurn();
    }
    let digest = hash.digest();
    for (let round = 1; round < rounds; round++) {
      digest = createHash(algorithm).update(digest).digest();
    }
    progress(chunks + 1, chunks + 1, 'done');
    return { digest: digest.toString('hex'), algorithm, rounds, bytes: document.length };
  }
}
