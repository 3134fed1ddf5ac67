import { type ReactNode, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { useAuth, useSigned } from '../auth';
import { NAVIGATION } from '../pages';
import { BrandMark, Icon } from './icons';
import { Button } from './ui';

function isCurrent(location: string, path: string): boolean {
  return path === '/' ? location === '/' : location === path || location.startsWith(`${path}/`);
}

function Brand() {
  return (
    <div className="brand">
      <BrandMark />
      <div>
        Tool invocation
        <small>Operator console</small>
      </div>
    </div>
  );
}

/** The frame of every page once signed in: the navigation, who is signed in, sign-out. */
export function Shell({ children }: { children: ReactNode }) {
  const [location] = useLocation();
  const { signOut } = useAuth();
  const signed = useSigned();
  // The menu (narrow screens) is open on the page it was opened on: going elsewhere closes it.
  const [openOn, setOpenOn] = useState<string | null>(null);
  const menuOpen = openOn === location;
  return (
    <div className={menuOpen ? 'shell menu-open' : 'shell'}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Brand />
        <Button
          small
          aria-expanded={menuOpen}
          aria-controls="navigation"
          onClick={() => setOpenOn(menuOpen ? null : location)}
        >
          <Icon name={menuOpen ? 'close' : 'menu'} size={16} />
          Menu
        </Button>
      </header>
      <aside className="sidebar" id="navigation">
        <Brand />
        <nav aria-label="Console">
          <ul className="nav-list">
            {NAVIGATION.map((page) => (
              <li key={page.path}>
                <Link
                  href={page.path}
                  aria-current={isCurrent(location, page.path) ? 'page' : undefined}
                >
                  <Icon name={page.nav!.icon} />
                  {page.nav!.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="sidebar-foot">
          <div>
            <div className="who">{signed.name}</div>
            <div className="who-scopes">
              {signed.canWrite ? 'Can change' : 'Read only'} · {signed.scopes.join(', ')}
            </div>
          </div>
          <Button small onClick={signOut}>
            <Icon name="out" size={15} />
            Sign out
          </Button>
        </div>
      </aside>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
