import { CopyButton } from './copy';
import { Dialog } from './dialog';
import { Button } from './ui';

/**
 * A secret (a key's, a webhook endpoint's), shown this once: the service never answers it again,
 * and the console forgets it when the dialog closes.
 */
export function SecretDialog({
  title,
  name,
  secret,
  label = "The key's secret",
  onClose,
}: {
  title: string;
  name: string;
  secret: string;
  /** What the secret is, for screen readers. */
  label?: string;
  onClose: () => void;
}) {
  return (
    <Dialog
      title={title}
      description={`Copy the secret of “${name}” now: it is shown this once and cannot be shown again.`}
      onClose={onClose}
      footer={
        <Button kind="primary" onClick={onClose}>
          I have stored it
        </Button>
      }
    >
      <div className="secret">
        <code data-testid="secret" aria-label={label}>
          {secret}
        </code>
        <CopyButton text={secret} />
      </div>
    </Dialog>
  );
}
