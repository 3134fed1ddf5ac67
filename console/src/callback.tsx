import { useEffect, useRef, useState } from 'react';
import { useLocation } from 'wouter';
import { completeSignIn } from './api/oauth';
import { useAuth } from './auth';
import { Loading } from './components/ui';
import { SignIn } from './sign-in';

/**
 * `/console/callback`: the issuer sends the browser back here with a code; the console trades it
 * for a token, signs in with it, and leaves the address (the code drops out of the history).
 */
export function OAuthCallback() {
  const { signIn } = useAuth();
  const [, navigate] = useLocation();
  const [error, setError] = useState<unknown>(null);
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    const query = window.location.search;
    window.history.replaceState(null, '', '/console/callback');
    completeSignIn(query)
      .then((token) => signIn(token))
      .then(
        () => navigate('/', { replace: true }),
        (failure: unknown) => setError(failure),
      );
  }, [signIn, navigate]);
  if (error) return <SignIn error={error} />;
  return (
    <div className="signin">
      <Loading label="Signing in" />
    </div>
  );
}
