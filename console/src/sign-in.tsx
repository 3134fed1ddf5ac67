import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { beginSignIn, consoleOAuth } from './api/oauth';
import { useAuth } from './auth';
import { BrandMark } from './components/icons';
import { Button, ErrorNotice } from './components/ui';

/**
 * The sign-in page: its first field is the key, Enter signs in. The key goes to the service in the
 * Authorization header only, and is kept in this tab's sessionStorage.
 */
export function SignIn({ error: initial }: { error?: unknown }) {
  const { signIn } = useAuth();
  const [key, setKey] = useState('');
  const [error, setError] = useState<unknown>(initial ?? null);
  const [busy, setBusy] = useState(false);
  const oauth = useQuery({
    queryKey: ['console-oauth'],
    queryFn: consoleOAuth,
    staleTime: Infinity,
  });

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const credential = key.trim();
    if (!credential) {
      setError(new Error('Enter an API key.'));
      return;
    }
    setBusy(true);
    setError(null);
    signIn(credential)
      .catch((failure: unknown) => setError(failure))
      .finally(() => setBusy(false));
  };

  return (
    <main className="signin" id="main">
      <form className="card signin-card" method="post" onSubmit={submit} noValidate>
        <div className="brand">
          <BrandMark />
          <div>
            <h1>Sign in</h1>
            <small>Tool invocation service · operator console</small>
          </div>
        </div>
        <div className="field">
          <label htmlFor="api-key">API key</label>
          <input
            id="api-key"
            name="api-key"
            type="password"
            autoComplete="off"
            spellCheck={false}
            autoFocus
            placeholder="sk_…"
            value={key}
            onChange={(event) => setKey(event.target.value)}
            aria-describedby="api-key-hint"
            aria-invalid={error ? true : undefined}
          />
          <p className="hint" id="api-key-hint">
            A key with admin:read to look, admin:write to change. It is kept in this tab only and
            forgotten when you sign out or close it.
          </p>
        </div>
        <ErrorNotice error={error} title="Not signed in" />
        <Button kind="primary" type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </Button>
        {oauth.data && (
          <>
            <div className="divider">or</div>
            <Button
              disabled={busy}
              onClick={() => {
                setBusy(true);
                setError(null);
                beginSignIn(oauth.data!).catch((failure: unknown) => {
                  setError(failure);
                  setBusy(false);
                });
              }}
            >
              Sign in with {new URL(oauth.data.issuer).host}
            </Button>
          </>
        )}
      </form>
    </main>
  );
}
