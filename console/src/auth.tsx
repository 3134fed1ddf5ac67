import { useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from 'react';
import { ApiFailure, api, ok, type Schemas, withRetry } from './api/client';
import { holds, holdsAnyToolScope } from './scopes';
import { session } from './session';

export type Me = Schemas['Me'] | Schemas['OAuthMe'] | Schemas['RunMe'];

export interface Signed {
  me: Me;
  /** A name to show for the signed-in caller. */
  name: string;
  /** May look (admin:read): the console needs it. */
  canRead: boolean;
  /** May change (admin:write): without it no changing control is shown. */
  canWrite: boolean;
  /** Holds a tool scope: the tools page may call tools. */
  canCallTools: boolean;
  scopes: readonly string[];
}

interface AuthState {
  signed: Signed | null;
  signIn: (credential: string) => Promise<void>;
  signOut: () => void;
  /** Takes the answer of GET /api/v1/auth/me for the credential already kept. */
  restore: (me: Me) => void;
}

const AuthContext = createContext<AuthState | null>(null);

/** A key by its name, a principal by its subject, a run (which holds no admin scope) by its label. */
function nameOf(me: Me): string {
  if ('kind' in me) return me.label ?? me.run_id;
  return me.auth_method === 'api_key' ? me.name : me.subject;
}

function signedAs(me: Me): Signed {
  return {
    me,
    name: nameOf(me),
    canRead: holds(me.scopes, 'admin:read'),
    canWrite: holds(me.scopes, 'admin:write'),
    canCallTools: holdsAnyToolScope(me.scopes),
    scopes: me.scopes,
  };
}

export const NEEDS_ADMIN_READ =
  'This key does not hold admin:read, which the console needs to show anything. Sign in with a key that holds admin:read (to look) or admin:write (to change).';

/** Asks the service who a credential is, without keeping it. */
export function whoIs(credential: string): Promise<Me> {
  return withRetry(() =>
    ok(api.GET('/api/v1/auth/me', { headers: { Authorization: `Bearer ${credential}` } })),
  );
}

export function AuthProvider({ children }: { children: ReactNode }) {
  const [signed, setSigned] = useState<Signed | null>(null);
  const signIn = useCallback(async (credential: string) => {
    const me = await whoIs(credential);
    const found = signedAs(me);
    if (!found.canRead) throw new ApiFailure(403, NEEDS_ADMIN_READ);
    session.keep(credential);
    setSigned(found);
  }, []);
  const queries = useQueryClient();
  // Nothing one key read stays for the next: the cache goes with the key.
  const signOut = useCallback(() => {
    session.forget();
    queries.clear();
    setSigned(null);
  }, [queries]);
  const restore = useCallback((me: Me) => setSigned(signedAs(me)), []);
  const value = useMemo(
    () => ({ signed, signIn, signOut, restore }),
    [signed, signIn, signOut, restore],
  );
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

export function useAuth(): AuthState {
  const state = useContext(AuthContext);
  if (!state) throw new Error('useAuth outside AuthProvider');
  return state;
}

/** The signed-in caller (pages are shown only once signed in). */
export function useSigned(): Signed {
  const { signed } = useAuth();
  if (!signed) throw new Error('not signed in');
  return signed;
}
