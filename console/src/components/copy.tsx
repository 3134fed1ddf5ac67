import { useState } from 'react';
import { Button } from './ui';

/** Copies a text to the clipboard and says so. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  return (
    <Button
      onClick={() => {
        navigator.clipboard.writeText(text).then(
          () => setCopied('yes'),
          () => setCopied('no'),
        );
      }}
    >
      <span aria-live="polite">
        {copied === 'yes' ? 'Copied' : copied === 'no' ? 'Copy failed: select it' : label}
      </span>
    </Button>
  );
}
