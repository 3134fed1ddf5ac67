import { type ComponentType, useEffect, useState } from 'react';
import { Route, Switch, useLocation } from 'wouter';
import { ApiFailure } from './api/client';
import { useAuth, whoIs } from './auth';
import { OAuthCallback } from './callback';
import { Shell } from './components/shell';
import { Loading } from './components/ui';
import { PAGES } from './pages';
import { session } from './session';
import { SignIn } from './sign-in';

function Titled({ title, component: Page }: { title: string; component: ComponentType }) {
  useEffect(() => {
    document.title = `${title} · Console`;
  }, [title]);
  return <Page />;
}

function NotFound() {
  return (
    <div className="stack">
      <h1>Page not found</h1>
      <p>This page is not part of the console.</p>
    </div>
  );
}

/** Sign-in until a key is signed in, then the page the location names. */
export function App() {
  const { signed, restore } = useAuth();
  const [location] = useLocation();
  const [restoring, setRestoring] = useState(() => session.key() !== null);
  const [lost, setLost] = useState<unknown>(null);

  // A reload keeps the tab's session: the kept key is asked who it is again.
  useEffect(() => {
    const kept = session.key();
    if (!kept) return;
    whoIs(kept)
      .then(restore, (error: unknown) => {
        // A key the service refuses is forgotten; one it could not judge now is kept.
        if (!(error instanceof ApiFailure && error.transient)) session.forget();
        setLost(error);
      })
      .finally(() => setRestoring(false));
  }, [restore]);

  if (location === '/callback' && !signed) return <OAuthCallback />;
  if (restoring && !signed) {
    return (
      <div className="signin">
        <Loading label="Signing in" />
      </div>
    );
  }
  if (!signed) return <SignIn error={lost} />;
  return (
    <Shell>
      <Switch>
        {PAGES.map((page) => (
          <Route key={page.path} path={page.path}>
            <Titled title={page.title} component={page.component} />
          </Route>
        ))}
        <Route>
          <NotFound />
        </Route>
      </Switch>
    </Shell>
  );
}
