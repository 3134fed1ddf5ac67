import { ApiProperty } from '@nestjs/swagger';
import { IntField, StringField } from '../../../src/kernel/validation/fields';

export const ALGORITHMS = ['sha256', 'sha512'] as const;
export type Algorithm = (typeof ALGORITHMS)[number];

export class ChecksumInput {
  @StringField({
    // Within the service's request body limit (64 KiB by default), JSON escaping included.
    description: 'The document whose checksum is computed.',
    minLength: 1,
    maxLength: 30_000,
    example: 'release notes of 2.4.0',
  })
  text: string;

  @StringField({
    description: 'The hash function.',
    optional: true,
    enum: ALGORITHMS,
    default: 'sha256',
  })
  algorithm: Algorithm;

  @IntField({
    description: 'Times the digest is hashed again (key stretching); 1 hashes the text once.',
    optional: true,
    minimum: 1,
    maximum: 10_000,
    default: 1,
  })
  rounds: number;
}

export class ChecksumResult {
  @ApiProperty({ description: 'The digest, in lower-case hexadecimal.', example: '9f86d08…' })
  digest: string;

  @ApiProperty({ enum: ALGORITHMS, description: 'The hash function used.', example: 'sha256' })
  algorithm: Algorithm;

  @ApiProperty({ type: 'integer', description: 'The rounds applied.', example: 1 })
  rounds: number;

  @ApiProperty({ type: 'integer', description: 'The document size, in UTF-8 bytes.', example: 22 })
  bytes: number;
}
